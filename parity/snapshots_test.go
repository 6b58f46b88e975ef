package parity

import (
	"flag"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the snapshots in testdata/parity from fakecloud")

// snapshotDir holds the snapshots make parity compares against.
var snapshotDir = filepath.Join("..", "testdata", "parity")

// TestSnapshots runs every scenario against a fresh fakecloud and
// reproduces every snapshot (-update rewrites them).
func TestSnapshots(t *testing.T) {
	results := Run(t.Context(), Config{Open: OpenFakecloud, Location: "fsn1", Record: *update, Dir: snapshotDir, RunID: NewRunID()})
	if len(results) != len(scenarios()) {
		t.Fatalf("%d results for %d scenarios", len(results), len(scenarios()))
	}
	for _, r := range results {
		t.Run(r.Scenario, func(t *testing.T) {
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if r.Diff != "" {
				t.Errorf("fakecloud does not reproduce %s (-snapshot +run):\n%s", SnapshotPath(snapshotDir, r.Scenario), r.Diff)
			}
			if len(r.Removed) > 0 {
				t.Errorf("the scenario left resources behind for the cleanup: %v", r.Removed)
			}
		})
	}
}
