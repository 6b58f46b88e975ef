package ccm

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// Every variable README documents is read, so none is warned of.
func TestDocumentedVariablesAreKnown(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	names := regexp.MustCompile("(?m)^\\| `(HCLOUD_[A-Z0-9_]+)` \\|").FindAllStringSubmatch(string(readme), -1)
	if len(names) < 25 {
		t.Fatalf("found %d variables in README's tables, want the full list", len(names))
	}
	var environ []string
	for _, n := range names {
		environ = append(environ, n[1]+"=x")
	}
	if warnings, _ := CheckEnviron(environ); len(warnings) > 0 {
		t.Errorf("documented variables warned of:\n%s", strings.Join(warnings, "\n"))
	}
}
