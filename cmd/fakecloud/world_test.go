package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStatePrintsTheSnapshot(t *testing.T) {
	fc, url := serveFake(t)
	if _, err := cli(t, url, "seed", "../../testdata/worlds/small.yaml"); err != nil {
		t.Fatal(err)
	}
	out, err := cli(t, url, "state")
	if err != nil {
		t.Fatal(err)
	}
	snapshot, err := fc.Export()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(snapshot)+"\n", out); diff != "" {
		t.Errorf("state (-export +printed):\n%s", diff)
	}
}

func TestResetLeavesTheTargetToFakecloud(t *testing.T) {
	_, url := serveFake(t)
	if _, err := cli(t, url, "reset", "yesterday"); err == nil || !strings.Contains(err.Error(), "invalid_input") || !strings.Contains(err.Error(), "yesterday") {
		t.Errorf("reset yesterday: %v, want invalid_input naming it", err)
	}
}
