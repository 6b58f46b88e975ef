package journal

import "testing"

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
