package fakecloud

import (
	"encoding/json"
	"net/netip"
)

// snapshotOf is a resource's JSON, to restore if an action fails.
func (w *liveWorld) snapshotOf(ref resourceRef) json.RawMessage {
	var v any
	switch ref.Type {
	case "server":
		v, _ = w.servers.get(ref.ID)
	case "load_balancer":
		v, _ = w.loadBalancers.get(ref.ID)
	case "network":
		v, _ = w.networks.get(ref.ID)
	case "certificate":
		v, _ = w.certificates.get(ref.ID)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return data
}

// restore puts a resource back as a snapshot had it, if it still exists,
// and rebuilds the network membership that depends on it.
func (w *liveWorld) restore(ref resourceRef, data json.RawMessage) {
	switch ref.Type {
	case "server":
		restoreInto(&w.servers, ref.ID, data)
	case "load_balancer":
		restoreInto(&w.loadBalancers, ref.ID, data)
	case "network":
		restoreInto(&w.networks, ref.ID, data)
	case "certificate":
		restoreInto(&w.certificates, ref.ID, data)
	}
	w.reindexNetworks()
}

func restoreInto[T any](t *table[T], id int64, data json.RawMessage) {
	cur, ok := t.get(id)
	if !ok {
		return
	}
	var v T
	if json.Unmarshal(data, &v) == nil {
		*cur = v
	}
}

// reindexNetworks rebuilds who holds which address in which network from
// the servers' and load balancers' private_net.
func (w *liveWorld) reindexNetworks() {
	w.netMembers = map[int64][]member{}
	w.netUsed = map[int64]map[netip.Addr]struct{}{}
	for _, s := range w.servers.all() {
		for _, pn := range s.PrivateNet {
			m := member{resourceRef: resourceRef{"server", s.ID}, ip: parseAddr(pn.IP)}
			for _, a := range pn.AliasIPs {
				m.alias = append(m.alias, parseAddr(a))
			}
			w.attach(pn.Network, m)
		}
	}
	for _, lb := range w.loadBalancers.all() {
		for _, pn := range lb.PrivateNet {
			w.attach(pn.Network, member{resourceRef: resourceRef{"load_balancer", lb.ID}, ip: parseAddr(pn.IP)})
		}
	}
}

func parseAddr(s string) netip.Addr {
	a, _ := netip.ParseAddr(s)
	return a
}
