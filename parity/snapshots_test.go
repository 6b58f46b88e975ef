package parity

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
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

// TestRecordKeepsThePublicRecord: -record against fakecloud does not
// overwrite a snapshot written from the public record; it compares.
func TestRecordKeepsThePublicRecord(t *testing.T) {
	dir := t.TempDir()
	before, err := os.ReadFile(SnapshotPath(snapshotDir, "public-record"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(SnapshotPath(dir, "public-record"), before, 0o644); err != nil {
		t.Fatal(err)
	}
	results := Run(t.Context(), Config{Open: OpenFakecloud, Location: "fsn1", Record: true, Dir: dir, RunID: NewRunID(),
		Match: regexp.MustCompile("^public-record$")})
	if len(results) != 1 || !results[0].OK() || results[0].Written != "" {
		t.Fatalf("a recording over the public record: %+v", results)
	}
	after, _ := os.ReadFile(SnapshotPath(dir, "public-record"))
	if !bytes.Equal(before, after) {
		t.Error("the public record was rewritten")
	}
}
