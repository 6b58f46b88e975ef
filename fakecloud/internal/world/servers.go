package world

import (
	"slices"
)

// HasInterface reports whether a server has a network interface, public
// (a primary IP) or private (a network, attached or attaching): the
// description of unassign says a server needs one to be powered on.
func (m *project) HasInterface(s *StoredServer) bool {
	if s.PublicNet.IPv4.ID != 0 || s.PublicNet.IPv6.ID != 0 || len(s.PrivateNet) > 0 {
		return true
	}
	ref := Ref{Type: "server", ID: s.ID}
	for _, members := range m.NetMembers {
		if slices.ContainsFunc(members, func(o Member) bool { return o.Ref == ref }) {
			return true
		}
	}
	return false
}
