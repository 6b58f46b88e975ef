package fakecloud

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"time"
)

// JournalEntry is one API request as fakecloud saw it.
type JournalEntry struct {
	Seq           uint64    `json:"seq"`
	Time          time.Time `json:"time"`
	Method        string    `json:"method"`
	Path          string    `json:"path"`     // as requested, without /v1
	Template      string    `json:"template"` // the route, e.g. /servers/{id}
	Status        int       `json:"status"`
	UserAgent     string    `json:"user_agent"`
	CorrelationID string    `json:"correlation_id"`
	Duration      Duration  `json:"duration"`
	Fault         int       `json:"fault,omitempty"` // ID of the fault rule that applied
}

// JournalFilter selects journal entries; zero fields match everything.
type JournalFilter struct {
	Method   string // exact
	Template string // exact route, e.g. /servers/{id}
	Path     string // prefix of the requested path
	Status   int
	Since    uint64 // entries after this sequence number
	Limit    int    // at most this many, the newest
}

// Counter is the number of requests for one method, route and status.
type Counter struct {
	Method   string `json:"method"`
	Template string `json:"template"`
	Status   int    `json:"status"`
	Count    uint64 `json:"count"`
}

type counterKey struct {
	method, template string
	status           int
}

// recorder keeps the journal (a ring of the newest entries) and the
// per-endpoint counters under one mutex, so both are exact under
// concurrency.
type recorder struct {
	mu       sync.Mutex
	seq      uint64
	size     int
	entries  []JournalEntry // a ring once full: the oldest is at head
	head     int
	counters map[counterKey]uint64
}

func newRecorder(size int) *recorder {
	if size <= 0 {
		size = 10000
	}
	return &recorder{size: size, counters: map[counterKey]uint64{}}
}

func (rc *recorder) record(e JournalEntry) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.seq++
	e.Seq = rc.seq
	if len(rc.entries) < rc.size {
		rc.entries = append(rc.entries, e)
	} else {
		rc.entries[rc.head] = e
		rc.head = (rc.head + 1) % rc.size
	}
	rc.counters[counterKey{e.Method, e.Template, e.Status}]++
}

func (rc *recorder) journal(f JournalFilter) []JournalEntry {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := []JournalEntry{}
	for i := range rc.entries {
		e := rc.entries[(rc.head+i)%len(rc.entries)]
		if e.Seq <= f.Since || (f.Method != "" && e.Method != f.Method) || (f.Template != "" && e.Template != f.Template) ||
			(f.Path != "" && !strings.HasPrefix(e.Path, f.Path)) || (f.Status != 0 && e.Status != f.Status) {
			continue
		}
		out = append(out, e)
	}
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[len(out)-f.Limit:]
	}
	return out
}

func (rc *recorder) clearJournal() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.entries, rc.head = nil, 0
}

// snapshot returns the counters sorted by route, method and status.
func (rc *recorder) snapshot() []Counter {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := make([]Counter, 0, len(rc.counters))
	for k, n := range rc.counters {
		out = append(out, Counter{Method: k.method, Template: k.template, Status: k.status, Count: n})
	}
	slices.SortFunc(out, func(a, b Counter) int {
		return cmp.Or(cmp.Compare(a.Template, b.Template), cmp.Compare(a.Method, b.Method), cmp.Compare(a.Status, b.Status))
	})
	return out
}

func (rc *recorder) resetCounters() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.counters = map[counterKey]uint64{}
}

// Journal returns the requests the filter selects, oldest first.
func (s *Server) Journal(f JournalFilter) []JournalEntry { return s.rec.journal(f) }

// ClearJournal forgets every journal entry; sequence numbers go on.
func (s *Server) ClearJournal() { s.rec.clearJournal() }

// Counters returns the request counts per method, route and status.
func (s *Server) Counters() []Counter { return s.rec.snapshot() }

// ResetCounters sets every request counter back to zero.
func (s *Server) ResetCounters() { s.rec.resetCounters() }

// Requests sums the counters whose method and route match; an empty
// method or template matches all. Tests assert API economy with it.
func (s *Server) Requests(method, template string) uint64 {
	var n uint64
	for _, c := range s.rec.snapshot() {
		if (method == "" || c.Method == method) && (template == "" || c.Template == template) {
			n += c.Count
		}
	}
	return n
}
