package event

import (
	"strings"
	"testing"

	"github.com/hcloudlab/hcloud-ccm/internal/refdoc"
)

// TestReferenceEvents: docs/reference/fakecloud/events.md lists every
// event type with the fields it reads.
func TestReferenceEvents(t *testing.T) {
	if len(eventDocs) != len(eventTypes) || len(eventFields) != len(eventTypes) {
		t.Errorf("%d event types, %d with fields, %d documented: want the same", len(eventTypes), len(eventFields), len(eventDocs))
	}
	var rows [][]string
	for _, typ := range eventTypes {
		if eventDocs[typ] == "" {
			t.Errorf("event %s is not documented in event.go", typ)
		}
		var fields []string
		for _, f := range eventFields[typ] {
			fields = append(fields, refdoc.Code(f))
		}
		rows = append(rows, []string{refdoc.Code(typ), strings.Join(fields, ", "), eventDocs[typ]})
	}
	refdoc.Check(t, "docs/reference/fakecloud/events.md", "events", refdoc.Table([]string{"type", "fields", "does"}, rows))
}
