package fakecloud

import (
	"fmt"
	"slices"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/event"
)

// The world's operations that are not API requests, as the Server offers
// them.

// Apply makes an event happen now. It fails, changing nothing, when the
// event is malformed or names a resource that does not exist.
func (s *Server) Apply(e Event) error {
	if s.name != "" && slices.Contains(event.DedicatedTypes, e.Type) {
		return fmt.Errorf("type: %s: dedicated servers are the default project's, where the Robot webservice serves them", e.Type)
	}
	return s.world.Apply(e)
}

// SetRealism changes the realism from now on; a bad one changes nothing.
func (s *Server) SetRealism(r Realism) error { return s.world.SetRealism(r) }

// Realism returns the realism in force.
func (s *Server) Realism() Realism { return s.world.Realism() }

// Export returns the whole world as JSON: every resource, every action
// (running ones with how they will end), locks, ID counters and the
// generator state, so Import gives back an identical world.
func (s *Server) Export() ([]byte, error) { return s.world.Export() }

// Import replaces the world with a snapshot from Export. A malformed
// snapshot is refused with an error naming the field and why, and the
// world is left as it was.
func (s *Server) Import(data []byte) error { return s.world.Import(data) }
