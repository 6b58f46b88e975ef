package fakecloud

// Reset empties the world (the catalogue stays); faults, journal and
// counters are kept.
func (s *Server) Reset() { s.world.Reset() }

// ResetToSeed replaces the world with the last world seeded, or empties
// it when none was.
func (s *Server) ResetToSeed() error {
	s.mu.Lock()
	seed := s.seed
	s.mu.Unlock()
	if seed == nil {
		s.Reset()
		return nil
	}
	return s.Seed(*seed)
}
