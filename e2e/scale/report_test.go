package scale

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func report(rows ...Row) *Report {
	c := Defaults()
	return &Report{Config: c, Date: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), Rows: rows}
}

func TestAimsAtTheIssuesSize(t *testing.T) {
	rep := report(
		Row{Phase: "burst", Key: "burst", Requests: 25, cloudShare: 0.05, PeakRSS: 100 << 20},
		Row{Phase: "steady", Key: "steady", Requests: 5, rate: true},               // 60 an hour: reached
		Row{Phase: "one", Key: "notready1", Requests: 8, rate: true},               // 96 an hour: missed
		Row{Phase: "create", Key: "create", Requests: 110, Wall: 31 * time.Second}, // too slow
		Row{Phase: "replace", Key: "replace", Requests: 210},
		Row{Phase: "deleted", Key: "deleted", Wall: 14 * time.Second, PeakRSS: 130 << 20},
	)
	missed := strings.Join(rep.Missed(), "\n")
	for _, want := range []string{"one: 96 /h", "create: 110 requests, 31s", "CCM peak RSS 130.0 MiB"} {
		if !strings.Contains(missed, want) {
			t.Errorf("missed aims lack %q:\n%s", want, missed)
		}
	}
	for _, reached := range []string{"burst", "steady", "replace", "deleted:"} {
		if strings.Contains(missed, reached) {
			t.Errorf("%s reached its aim, but is listed as missed:\n%s", reached, missed)
		}
	}
}

func TestBurstAimScalesWithPages(t *testing.T) {
	rep := report(Row{Key: "burst", Requests: 7})
	rep.Config.Nodes = 60 // two pages: the aim is 2 + 5
	if len(rep.Missed()) != 0 {
		t.Errorf("7 requests at 60 nodes missed: %v", rep.Missed())
	}
	rep.Rows[0].Requests = 8
	if len(rep.Missed()) != 1 {
		t.Errorf("8 requests at 60 nodes reached the aim")
	}
}

func TestWriteIntoReplacesOnlyTheMarkedSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	begin, end := "<!-- make scale: begin -->", "<!-- make scale: end -->"
	before := "# Benchmarks\n\n" + begin + "\nold table\n" + end + "\n\nexplained here\n"
	if err := os.WriteFile(path, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := report(Row{Phase: "steady state", Key: "steady", Requests: 3, Wall: time.Minute, rate: true})
	if err := rep.WriteInto(path); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	got := string(b)
	if strings.Contains(got, "old table") || !strings.Contains(got, "| steady state | 36 /h (3 in 5m0s)") ||
		!strings.HasPrefix(got, "# Benchmarks\n\n"+begin) || !strings.HasSuffix(got, end+"\n\nexplained here\n") {
		t.Errorf("after WriteInto:\n%s", got)
	}
	if err := os.WriteFile(path, []byte("no markers"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteInto(path); err == nil {
		t.Error("a file without markers was written into")
	}
}

// With dedicated Nodes the steady state's Robot requests have an aim, and
// any phase that reached the webservice's limit misses one.
func TestRobotAims(t *testing.T) {
	rep := report(
		Row{Phase: "steady", Key: "steady", Requests: 3, Robot: 2, rate: true},                  // 24 Robot an hour
		Row{Phase: "one", Key: "notready1", Requests: 1, Robot: 1, RobotRefused: 1, rate: true}, // refused
	)
	rep.Config.Dedicated = 50
	missed := strings.Join(rep.Missed(), "\n")
	if strings.Contains(missed, "steady") || !strings.Contains(missed, "one: the Robot webservice's hourly limit was reached (1 requests refused)") {
		t.Errorf("missed:\n%s", missed)
	}
	rep.Rows[0].Robot = 3 // 36 an hour
	if missed := strings.Join(rep.Missed(), "\n"); !strings.Contains(missed, "steady: 36 /h (3 in 5m0s), Robot 36 /h (3), aim ≤ 60 /h; Robot ≤ 30 /h") {
		t.Errorf("missed:\n%s", missed)
	}
	if md := rep.Markdown(); !strings.Contains(md, "50 of them on dedicated servers") || !strings.Contains(md, "| 36 /h (3) |") {
		t.Errorf("markdown:\n%s", md)
	}
}
