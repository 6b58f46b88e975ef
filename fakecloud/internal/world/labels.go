package world

import (
	"strings"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/labelselector"
)

// validateLabels checks a labels map the way the API does.
func validateLabels(f *fieldErrors, field string, labels map[string]string) {
	for k, v := range labels {
		switch {
		case !labelselector.ValidKey(k):
			f.add(field, "label key %q is invalid", k)
		case strings.HasPrefix(k, "hetzner.cloud/"):
			f.add(field, "label key %q uses the reserved prefix hetzner.cloud/", k)
		case !labelselector.ValidValue(v):
			f.add(field, "label value %q of key %q is invalid", v, k)
		}
	}
}

// copyLabels returns a non-nil copy of labels, so they encode as {}.
func copyLabels(labels map[string]string) map[string]string {
	out := make(map[string]string, len(labels))
	for k, v := range labels {
		out[k] = v
	}
	return out
}

// derefLabels copies the labels a request may omit; nil gives {}.
func derefLabels(p *map[string]string) map[string]string {
	if p == nil {
		return map[string]string{}
	}
	return copyLabels(*p)
}
