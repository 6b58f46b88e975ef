package ociimage

import "testing"

func TestStampedVersion(t *testing.T) {
	for _, tc := range []struct {
		name, ldflags, want string
		ok                  bool
	}{
		{"the Makefile's", "-s -w -X k8s.io/component-base/version.gitVersion=v1.36.3 -X " + VersionSymbol + "=v0.1.0-3-gabc", "v0.1.0-3-gabc", true},
		{"with equals", "-X=" + VersionSymbol + "=v1", "v1", true},
		{"double dash", "--X " + VersionSymbol + "=v1", "v1", true},
		{"the last wins", "-X " + VersionSymbol + "=v1 -X " + VersionSymbol + "=v2", "v2", true},
		{"empty value", "-X " + VersionSymbol + "=", "", true},
		{"none", "-s -w", "", false},
		{"another symbol", "-X main.Version=v1", "", false},
		{"a longer name", "-X " + VersionSymbol + "Suffix=v1", "", false},
		{"dangling -X", "-s -X", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := stampedVersion(tc.ldflags)
			if got != tc.want || ok != tc.ok {
				t.Errorf("stampedVersion(%q) = %q, %v; want %q, %v", tc.ldflags, got, ok, tc.want, tc.ok)
			}
		})
	}
}
