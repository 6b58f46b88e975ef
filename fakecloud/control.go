package fakecloud

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
