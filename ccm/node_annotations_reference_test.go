package ccm

import (
	"testing"

	"github.com/hcloudlab/hcloud-ccm/internal/refdoc"
)

// TestReferenceNodeAnnotations: the Node annotations of
// docs/reference/annotations.md are nodeAnnotationDocs; make docs
// rewrites them.
func TestReferenceNodeAnnotations(t *testing.T) {
	var rows [][]string
	for _, d := range nodeAnnotationDocs {
		rows = append(rows, []string{refdoc.Code(d.Key), d.Value, d.Default, refdoc.Code(d.Example), d.What})
	}
	refdoc.Check(t, "docs/reference/annotations.md", "node-annotations", refdoc.Table([]string{"annotation", "value", "default", "example", "what"}, rows))
}
