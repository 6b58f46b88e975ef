// Package journal records the API requests fakecloud serves: a ring of the
// newest entries and a count per method, route and status.
package journal

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/jsontime"
)

// Entry is one API request as fakecloud saw it.
type Entry struct {
	Seq           uint64            `json:"seq"`
	Time          time.Time         `json:"time"`
	Method        string            `json:"method"`
	Path          string            `json:"path"`     // as requested, without /v1
	Template      string            `json:"template"` // the route, e.g. /servers/{id}
	Status        int               `json:"status"`
	UserAgent     string            `json:"user_agent"`
	CorrelationID string            `json:"correlation_id"`
	Duration      jsontime.Duration `json:"duration"`
	Fault         int               `json:"fault,omitempty"`   // ID of the fault rule that applied
	Actions       []string          `json:"actions,omitempty"` // commands of the actions the request started
	// Truncated names the fields Record cut to their limit (FieldLimits),
	// e.g. ["user_agent"]: they hold the start of what the client sent.
	Truncated []string `json:"truncated,omitempty"`
}

// Filter selects journal entries; zero fields match everything.
type Filter struct {
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

// Recorder keeps the journal (a ring of the newest entries) and the
// counters under one mutex, so both are exact under concurrency.
type Recorder struct {
	mu       sync.Mutex
	seq      uint64
	size     int
	entries  []Entry // a ring once full: the oldest is at head
	head     int
	counters map[counterKey]uint64
}

// New returns a Recorder whose journal keeps the newest size entries
// (10000 when size is not positive).
func New(size int) *Recorder {
	if size <= 0 {
		size = 10000
	}
	return &Recorder{size: size, counters: map[counterKey]uint64{}}
}

// FieldLimits are the most bytes an entry keeps of what the client chose,
// by field: a longer value is cut (at a character's start) and the field
// named in Truncated, so the journal's memory is bounded whatever is sent.
var FieldLimits = []struct {
	Field string
	Limit int
}{{"method", 16}, {"path", 1024}, {"user_agent", 256}, {"correlation_id", 128}}

// Bound cuts an entry's client-chosen fields to FieldLimits, copying what
// it keeps, so the request's memory is not held.
func Bound(e *Entry) {
	fields := [...]*string{&e.Method, &e.Path, &e.UserAgent, &e.CorrelationID} // in FieldLimits' order
	for i, f := range FieldLimits {
		v := fields[i]
		if len(*v) <= f.Limit {
			continue
		}
		cut := f.Limit
		for cut > 0 && !utf8.RuneStart((*v)[cut]) {
			cut--
		}
		*v = strings.Clone((*v)[:cut])
		e.Truncated = append(e.Truncated, f.Field)
	}
}

// countedMethods are the methods a counter names; any other is counted
// as OTHER, so a client cannot add counters by making methods up.
var countedMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

func countedMethod(m string) string {
	if slices.Contains(countedMethods, m) {
		return m
	}
	return "OTHER"
}

// Record numbers an entry, keeps it, bounded to FieldLimits, and counts
// it.
func (rc *Recorder) Record(e Entry) {
	Bound(&e)
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
	rc.counters[counterKey{countedMethod(e.Method), e.Template, e.Status}]++
}

// Entries returns the kept entries the filter selects, oldest first.
func (rc *Recorder) Entries(f Filter) []Entry {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := []Entry{}
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

// Clear forgets every entry; sequence numbers and counters go on.
func (rc *Recorder) Clear() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.entries, rc.head = nil, 0
}

// Counters returns the counters sorted by route, method and status.
func (rc *Recorder) Counters() []Counter {
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

// ResetCounters sets every counter back to zero.
func (rc *Recorder) ResetCounters() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.counters = map[counterKey]uint64{}
}

// Requests sums the counters whose method and route match; an empty
// method or template matches all.
func (rc *Recorder) Requests(method, template string) uint64 {
	var n uint64
	for _, c := range rc.Counters() {
		if (method == "" || c.Method == method) && (template == "" || c.Template == template) {
			n += c.Count
		}
	}
	return n
}
