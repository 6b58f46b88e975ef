package hcloudapi

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
