package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

func TestFaultsPrintsTheAnswer(t *testing.T) {
	fc, url := serveFake(t)
	if _, err := fc.AddFault(fakecloud.Rule{Path: "/**", Status: 500, Message: "<down & out>", Latency: fakecloud.Duration(2e9)}); err != nil {
		t.Fatal(err)
	}
	if _, err := fc.AddActionFault(fakecloud.ActionFault{Command: "add_target", Delay: fakecloud.Duration(30e9)}); err != nil {
		t.Fatal(err)
	}
	out, err := cli(t, url, "faults")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(indented(t, adminAnswer(t, url, "/faults")), out); diff != "" {
		t.Errorf("faults (-answer +printed):\n%s", diff)
	}
}

func TestFaultsRmTakesOnlyIDs(t *testing.T) {
	fc, url := serveFake(t)
	rule, err := fc.AddFault(fakecloud.Rule{Path: "/**", Status: 500})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"one", "01", "+1", "1.0"} {
		if _, err := cli(t, url, "faults", "rm", id); err == nil || !strings.Contains(err.Error(), "not a fault ID") {
			t.Errorf("faults rm %s: %v, want not a fault ID", id, err)
		}
	}
	if _, err := cli(t, url, "faults", "rm", "2"); err == nil || !strings.Contains(err.Error(), "not_found") {
		t.Errorf("faults rm of an unknown ID: %v, want not_found", err)
	}
	if rules, _ := fc.Faults(); len(rules) != 1 || rules[0].ID != rule.ID {
		t.Errorf("rules: %+v, want only %d", rules, rule.ID)
	}
}
