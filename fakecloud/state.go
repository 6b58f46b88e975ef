package fakecloud

import (
	"encoding/json"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

// state is the world's content as JSON, in ID order.
type state struct {
	Servers       []*server             `json:"servers"`
	LoadBalancers []*loadBalancer       `json:"load_balancers"`
	Networks      []*schema.Network     `json:"networks"`
	Certificates  []*schema.Certificate `json:"certificates"`
	SSHKeys       []*schema.SSHKey      `json:"ssh_keys"`
	PrimaryIPs    []*schema.PrimaryIP   `json:"primary_ips"`
	Actions       []schema.Action       `json:"actions"`
	LastIDs       map[string]int64      `json:"last_ids"`
}

// Export returns the whole world as JSON: every resource, every action and
// the ID counters.
func (s *Server) Export() ([]byte, error) {
	w := s.world
	w.mu.Lock()
	defer w.mu.Unlock()
	w.settle()
	st := state{
		Servers: w.servers.all(), LoadBalancers: w.loadBalancers.all(), Networks: w.networks.all(),
		Certificates: w.certificates.all(), SSHKeys: w.sshKeys.all(), PrimaryIPs: w.primaryIPs.all(),
		LastIDs: w.lastID,
	}
	for _, a := range w.actions.all() {
		st.Actions = append(st.Actions, a.Action)
	}
	return json.MarshalIndent(st, "", "  ")
}
