package world

import (
	"strings"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/labelselector"
)

// ValidateLabels checks a labels map the way the API does.
func ValidateLabels(f *apierr.Fields, field string, labels map[string]string) {
	for k, v := range labels {
		switch {
		case !labelselector.ValidKey(k):
			f.Add(field, "label key %q is invalid", k)
		case strings.HasPrefix(k, "hetzner.cloud/"):
			f.Add(field, "label key %q uses the reserved prefix hetzner.cloud/", k)
		case !labelselector.ValidValue(v):
			f.Add(field, "label value %q of key %q is invalid", v, k)
		}
	}
}

// CopyLabels returns a non-nil copy of labels, so they encode as {}.
func CopyLabels(labels map[string]string) map[string]string {
	out := make(map[string]string, len(labels))
	for k, v := range labels {
		out[k] = v
	}
	return out
}

// DerefLabels copies the labels a request may omit; nil gives {}.
func DerefLabels(p *map[string]string) map[string]string {
	if p == nil {
		return map[string]string{}
	}
	return CopyLabels(*p)
}
