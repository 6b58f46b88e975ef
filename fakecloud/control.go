package fakecloud

import "errors"

// AddFault adds a request fault rule after the existing ones and returns
// it with its ID. A malformed rule is refused, naming each bad field.
func (s *Server) AddFault(r Rule) (Rule, error) { return s.faults.add(r) }

// AddActionFault makes the next actions of a command fail or run longer.
func (s *Server) AddActionFault(a ActionFault) (ActionFault, error) { return s.faults.addAction(a) }

// Faults lists the request rules and action faults with their hit counts.
func (s *Server) Faults() ([]Rule, []ActionFault) { return s.faults.list() }

// RemoveFault removes a rule or action fault; it reports whether one had the ID.
func (s *Server) RemoveFault(id int) bool { return s.faults.remove(id) }

// ClearFaults removes every rule and action fault.
func (s *Server) ClearFaults() { s.faults.clear() }

// RateLimit reports the limit, the remaining budget and the refill rate.
func (s *Server) RateLimit() (limit, remaining int, refill float64, on bool) {
	if s.limiter == nil {
		return 0, 0, 0, false
	}
	st := s.limiter.peek()
	s.limiter.mu.Lock()
	defer s.limiter.mu.Unlock()
	return st.limit, st.remaining, s.limiter.refill, true
}

// SetRateLimit sets the remaining budget and the refill rate (requests per
// second); a negative value keeps the current one.
func (s *Server) SetRateLimit(remaining int, refill float64) error {
	if s.limiter == nil {
		return errors.New("rate limiting is off")
	}
	s.limiter.set(remaining, refill)
	return nil
}

// Reset empties the world (the catalogue stays); faults, journal and
// counters are kept.
func (s *Server) Reset() {
	w := s.world
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reset()
	w.changes++
}

// ResetToSeed replaces the world with the last world seeded, or empties
// it when none was.
func (s *Server) ResetToSeed() error {
	s.world.mu.Lock()
	seed := s.seed
	s.world.mu.Unlock()
	if seed == nil {
		s.Reset()
		return nil
	}
	return s.Seed(*seed)
}
