package journal

import (
	"slices"
	"strings"
	"testing"
)

func TestJournalKeepsTheNewest(t *testing.T) {
	rc := New(3)
	for _, p := range []string{"/a", "/b", "/c", "/d", "/e"} {
		rc.Record(Entry{Method: "GET", Path: p, Template: p, Status: 200})
	}
	var got []string
	for _, e := range rc.Entries(Filter{}) {
		got = append(got, e.Path)
	}
	if len(got) != 3 || got[0] != "/c" || got[2] != "/e" {
		t.Errorf("journal %v, want the newest three in order", got)
	}
	if n := rc.Entries(Filter{Since: 4}); len(n) != 1 || n[0].Seq != 5 {
		t.Errorf("since 4: %+v", n)
	}
	if len(rc.Counters()) != 5 {
		t.Errorf("counters forget nothing: %+v", rc.Counters())
	}
}

// TestJournalBoundsWhatClientsChoose: a long header or path is kept cut to
// its limit, at a character's start, and marked; a made-up method is
// counted as OTHER, so neither grows memory with what a client sends.
func TestJournalBoundsWhatClientsChoose(t *testing.T) {
	rc := New(10)
	long := strings.Repeat("é", 200) // 400 bytes
	rc.Record(Entry{Method: "BREWCOFFEEWITHMILKANDSUGAR", Path: "/" + strings.Repeat("p", 2000), Template: "unmatched", Status: 404,
		UserAgent: long, CorrelationID: strings.Repeat("c", 129)})
	rc.Record(Entry{Method: "GET", Path: "/servers", Template: "/servers", Status: 200, UserAgent: "hcloud-go", CorrelationID: "abc"})
	got := rc.Entries(Filter{})
	e := got[0]
	if len(e.Method) != 16 || len(e.Path) != 1024 || e.UserAgent != strings.Repeat("é", 128) || len(e.CorrelationID) != 128 {
		t.Errorf("a long entry kept: method %q, path %d bytes, user agent %d bytes %q, correlation ID %d bytes", e.Method, len(e.Path), len(e.UserAgent), e.UserAgent[250:], len(e.CorrelationID))
	}
	if want := []string{"method", "path", "user_agent", "correlation_id"}; !slices.Equal(e.Truncated, want) {
		t.Errorf("truncated %v, want %v", e.Truncated, want)
	}
	if got[1].Truncated != nil || got[1].UserAgent != "hcloud-go" {
		t.Errorf("a short entry: %+v", got[1])
	}
	want := []Counter{{Method: "GET", Template: "/servers", Status: 200, Count: 1}, {Method: "OTHER", Template: "unmatched", Status: 404, Count: 1}}
	if got := rc.Counters(); !slices.Equal(got, want) {
		t.Errorf("counters %+v, want %+v", got, want)
	}
}
