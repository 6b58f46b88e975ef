package fakecloud

import (
	"net/http"
)

// Reset empties the world (the catalogue stays); faults, journal and
// counters are kept.
func (s *Server) Reset() { s.s.Reset() }

// ResetToSeed replaces the world with the last world seeded, or empties
// it when none was.
func (s *Server) ResetToSeed() error { return s.s.ResetToSeed() }

// Apply makes an event happen now. It fails, changing nothing, when the
// event is malformed or names a resource that does not exist.
func (s *Server) Apply(e Event) error { return s.s.Apply(e) }

// AddFault adds a request fault rule after the existing ones and returns
// it with its ID. A malformed rule is refused, naming each bad field.
func (s *Server) AddFault(r Rule) (Rule, error) { return s.s.AddFault(r) }

// AddActionFault makes the next actions of a command fail or run longer.
func (s *Server) AddActionFault(a ActionFault) (ActionFault, error) { return s.s.AddActionFault(a) }

// Faults lists the request rules and action faults with their hit counts.
func (s *Server) Faults() ([]Rule, []ActionFault) { return s.s.Faults() }

// RemoveFault removes a rule or action fault; it reports whether one had the ID.
func (s *Server) RemoveFault(id int) bool { return s.s.RemoveFault(id) }

// ClearFaults removes every rule and action fault.
func (s *Server) ClearFaults() { s.s.ClearFaults() }

// Journal returns the requests the filter selects, oldest first.
func (s *Server) Journal(f JournalFilter) []JournalEntry { return s.s.Journal(f) }

// ClearJournal forgets every journal entry; sequence numbers go on.
func (s *Server) ClearJournal() { s.s.ClearJournal() }

// Counters returns the request counts per method, route and status.
func (s *Server) Counters() []Counter { return s.s.Counters() }

// ResetCounters sets every request counter back to zero.
func (s *Server) ResetCounters() { s.s.ResetCounters() }

// Requests sums the counters whose method and route match; an empty
// method or template matches all. Tests assert API economy with it.
func (s *Server) Requests(method, template string) uint64 { return s.s.Requests(method, template) }

// LoadStateFile imports a state file written by Persist. A missing file is
// not an error (found is false); a file that cannot be read or imported is,
// and is left untouched.
func (s *Server) LoadStateFile(path string) (found bool, err error) { return s.s.LoadStateFile(path) }

// OpenStateFile takes a state file for this process: it locks it (a
// second fakecloud on the same file is refused, naming the holder),
// checks that its directory takes new files, and restores the world from
// it when it exists. Nothing is written before Persist.
func (s *Server) OpenStateFile(path string) (f *StateFile, restored bool, err error) {
	return s.s.OpenStateFile(path)
}

// StateFileStatus reports the state file's writes; ok is false without one.
func (s *Server) StateFileStatus() (st StateFileStatus, ok bool) { return s.s.StateFileStatus() }

// RateLimit reports the limit, the remaining budget and the refill rate.
func (s *Server) RateLimit() (limit, remaining int, refill float64, on bool) { return s.s.RateLimit() }

// SetRateLimit sets the remaining budget and the refill rate (requests per
// second); a negative value keeps the current one.
func (s *Server) SetRateLimit(remaining int, refill float64) error {
	return s.s.SetRateLimit(remaining, refill)
}

// SetRealism changes the realism from now on; a bad one changes nothing.
func (s *Server) SetRealism(r Realism) error { return s.s.SetRealism(r) }

// Realism returns the realism in force.
func (s *Server) Realism() Realism { return s.s.Realism() }

// HTTPServer is an http.Server for s with fakecloud's request limits:
// headers, whole-request read time and idle keep-alive connections.
// Responses have no time limit, since a fault may hang one on purpose.
func (s *Server) HTTPServer() *http.Server { return s.s.HTTPServer() }

// LoadScenarioFile reads and loads a scenario file.
func (s *Server) LoadScenarioFile(path string) error { return s.s.LoadScenarioFile(path) }

// LoadScenario checks every step, then starts the scenario: fault rules
// and action faults are added with their start delayed to the step's time;
// events and rate-limit changes happen when their time has come, checked at
// every request. A malformed scenario is refused whole, naming the step and
// field.
func (s *Server) LoadScenario(sc Scenario) error { return s.s.LoadScenario(sc) }

// Seed replaces the world with a seed world. Its resources are created
// through the same code paths, and so the same validation, as API
// requests, in a scratch world whose actions finish at once; the live
// world is replaced only when every resource was accepted. A refused seed
// changes nothing (not the world, its ID counters, nor the seed that
// ResetToSeed plants), and the error names the resource and the reason.
func (s *Server) Seed(seed World) error { return s.s.Seed(seed) }

// Export returns the whole world as JSON: every resource, every action
// (running ones with how they will end), locks, ID counters and the
// generator state, so Import gives back an identical world.
func (s *Server) Export() ([]byte, error) { return s.s.Export() }

// Import replaces the world with a snapshot from Export. A malformed
// snapshot is refused with an error naming the field and why, and the
// world is left as it was.
func (s *Server) Import(data []byte) error { return s.s.Import(data) }
