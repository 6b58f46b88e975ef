package fakecloud

import "github.com/hcloudlab/hcloud-ccm/fakecloud/internal/journal"

// JournalEntry is one API request as fakecloud saw it.
type JournalEntry = journal.Entry

// JournalFilter selects journal entries; zero fields match everything.
type JournalFilter = journal.Filter

// Counter is the number of requests for one method, route and status.
type Counter = journal.Counter

// Journal returns the requests the filter selects, oldest first.
func (s *Server) Journal(f JournalFilter) []JournalEntry { return s.rec.Entries(f) }

// ClearJournal forgets every journal entry; sequence numbers go on.
func (s *Server) ClearJournal() { s.rec.Clear() }

// Counters returns the request counts per method, route and status.
func (s *Server) Counters() []Counter { return s.rec.Counters() }

// ResetCounters sets every request counter back to zero.
func (s *Server) ResetCounters() { s.rec.ResetCounters() }

// Requests sums the counters whose method and route match; an empty
// method or template matches all. Tests assert API economy with it.
func (s *Server) Requests(method, template string) uint64 { return s.rec.Requests(method, template) }
