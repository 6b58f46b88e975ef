package ccm

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hcloudlab/hcloud-ccm/internal/refdoc"
)

func TestCheckEnviron(t *testing.T) {
	warnings, err := CheckEnviron([]string{
		"HCLOUD_TOKEN=x", "HCLOUD_NETWORK=cluster", "PATH=/bin", // read: nothing to say
		"HCLOUD_SERVER_CACHE_MODE=all", "HCLOUD_SERVER_CACHE_MAX_AGE=10s", // the official CCM's
		"ROBOT_USER=u", "ROBOT_PASSWORD=p", "ROBOT_ENABLED=false", // read
		"ROBOT_USERNAME=u",                   // a typo
		"HCLOUD_LOAD_BALANCER_LOCATION=fsn1", // a typo
		"HCLOUD_FROBNICATE=1",                // nothing like it
		"ROBOT_PASSWORD_FILE=",               // empty: not set
	})
	if err != nil {
		t.Fatalf("ROBOT_ENABLED=false is an error: %v", err)
	}
	want := []string{
		"HCLOUD_FROBNICATE is set but not a setting of this CCM",
		"HCLOUD_LOAD_BALANCER_LOCATION is set but not a setting of this CCM; did you mean HCLOUD_LOAD_BALANCERS_LOCATION?",
		"HCLOUD_SERVER_CACHE_MAX_AGE is set but not honoured: use HCLOUD_INVENTORY_MAX_AGE (default 5m) for node metadata and routes, HCLOUD_INVENTORY_LIFECYCLE_MAX_AGE (default 1m) for deleted and stopped servers",
		"HCLOUD_SERVER_CACHE_MODE is set but not honoured: the server inventory is always on; HCLOUD_INVENTORY_MAX_AGE (default 5m) and HCLOUD_INVENTORY_LIFECYCLE_MAX_AGE (default 1m) set how old a server may be",
		"ROBOT_USERNAME is set but not a setting of this CCM; did you mean ROBOT_USER?",
	}
	if d := cmp.Diff(want, warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
}

// A value the official CCM cannot parse is refused, not read as false.
func TestRobotEnabledMustBeABoolean(t *testing.T) {
	for _, v := range []string{"yes", "on", "enabled", "2"} {
		if _, err := LoadConfig(env(map[string]string{"HCLOUD_TOKEN": "t", "ROBOT_ENABLED": v}), nil); err == nil || !strings.Contains(err.Error(), "want true or false") {
			t.Errorf("ROBOT_ENABLED=%q: err = %v, want refused as not a boolean", v, err)
		}
	}
	for _, v := range []string{"false", "0", "F", "False"} {
		if _, err := LoadConfig(env(map[string]string{"HCLOUD_TOKEN": "t", "ROBOT_ENABLED": v}), nil); err != nil {
			t.Errorf("ROBOT_ENABLED=%q: %v, want accepted", v, err)
		}
	}
}

// TestReferenceEnvironment: the settings table names exactly the
// variables the CCM reads, so none ships undocumented, and
// docs/reference/environment.md is generated from it.
func TestReferenceEnvironment(t *testing.T) {
	documented := map[string]bool{}
	var b strings.Builder
	for _, g := range settings {
		fmt.Fprintf(&b, "## %s\n\n", g.title)
		if g.intro != "" {
			b.WriteString(g.intro + "\n\n")
		}
		var rows [][]string
		for _, s := range g.settings {
			if documented[s.Name] {
				t.Errorf("%s is documented twice", s.Name)
			}
			documented[s.Name] = true
			if s.Default == "" || s.Meaning == "" || s.Example == "" {
				t.Errorf("%s lacks its default, meaning or example", s.Name)
			}
			meaning := s.Meaning
			if s.Own {
				meaning = "this CCM's own: " + meaning
			}
			rows = append(rows, []string{refdoc.Code(s.Name), defaultCell(s.Default), meaning, refdoc.Code(s.Example)})
		}
		b.WriteString(refdoc.Table([]string{"variable", "default", "meaning", "example"}, rows) + "\n")
	}
	for name := range knownNames() {
		if !documented[name] {
			t.Errorf("LoadConfig reads %s, which the settings table lacks", name)
		}
	}
	for name := range documented {
		if !knownNames()[name] && !readByTheCommand[name] {
			t.Errorf("the settings table documents %s, which nothing reads", name)
		}
	}
	if warnings, _ := CheckEnviron(slices.Collect(func(yield func(string) bool) {
		for name := range documented {
			if !yield(name + "=x") {
				return
			}
		}
	})); len(warnings) > 0 {
		t.Errorf("documented variables warned of:\n%s", strings.Join(warnings, "\n"))
	}
	refdoc.Check(t, "docs/reference/environment.md", "environment", strings.TrimSuffix(b.String(), "\n"))
}

// defaultCell sets a literal default as code and words as words:
// "5m (also for 0)" becomes "`5m` (also for 0)".
func defaultCell(d string) string {
	value, rest, _ := strings.Cut(d, " ")
	switch value {
	case "none", "required", "unset", "API":
		return d
	}
	if rest != "" {
		return refdoc.Code(value) + " " + rest
	}
	return refdoc.Code(value)
}
