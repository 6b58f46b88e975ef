package version

import (
	"strings"
	"testing"
)

func TestStringNamesEveryVersion(t *testing.T) {
	old := Version
	t.Cleanup(func() { Version = old })
	Version = "v1.2.3-4-gabcdef0"
	got := String()
	for _, want := range []string{"hcloud-ccm v1.2.3-4-gabcdef0 (", "Kubernetes v", "hcloud-go 2.", "go1."} {
		if !strings.Contains(got, want) {
			t.Errorf("String() = %q, want it to contain %q", got, want)
		}
	}
}
