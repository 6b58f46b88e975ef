package world

import (
	"encoding/json"
	"net/netip"
	"reflect"
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

// snapshotOf is a resource's JSON, to restore if an action fails.
func (w *State) snapshotOf(ref resourceRef) json.RawMessage {
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

// restore undoes a failed action's change to the resource it locked:
// before is the resource before the change, applied as the change left it
// (nil in snapshots older than the merge: then before is put back whole).
// Changes made since by others stay (revertJSON), and what the undo
// would put back that no longer fits the world is left out (fitRestored).
func (w *State) restore(ref resourceRef, before, applied json.RawMessage) {
	switch ref.Type {
	case "server":
		restoreInto(&w.servers, ref.ID, before, applied)
	case "load_balancer":
		restoreInto(&w.loadBalancers, ref.ID, before, applied)
	case "network":
		restoreInto(&w.networks, ref.ID, before, applied)
	case "certificate":
		restoreInto(&w.certificates, ref.ID, before, applied)
	}
	w.fitRestored(ref)
	w.reindexNetworks()
}

func restoreInto[T any](t *table[T], id int64, before, applied json.RawMessage) {
	cur, ok := t.get(id)
	if !ok {
		return
	}
	data := before
	if applied != nil {
		now, err := json.Marshal(cur)
		if err != nil {
			return
		}
		if data, err = revertJSON(reflect.TypeFor[T](), before, applied, now); err != nil {
			return
		}
	}
	var v T
	if json.Unmarshal(data, &v) == nil {
		*cur = v
	}
}

// reindexNetworks rebuilds who holds which address in which network from
// the servers' and load balancers' private_net.
func (w *State) reindexNetworks() {
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

// fitRestored leaves out of a restored resource what another change made
// impossible meanwhile: an attachment to a network deleted since, or to an
// address another resource took since, and a certificate deleted since.
func (w *State) fitRestored(ref resourceRef) {
	keep := func(netID int64, ips ...string) bool {
		n, ok := w.networks.get(netID)
		if !ok {
			return false
		}
		for _, ip := range ips {
			a := parseAddr(ip)
			if !slices.ContainsFunc(n.Subnets, func(sub schema.NetworkSubnet) bool {
				p, err := netip.ParsePrefix(sub.IPRange)
				return err == nil && p.Contains(a)
			}) {
				return false
			}
			// The index still holds this resource's own addresses.
			if own, ok := w.memberOf(netID, ref); w.ipInUse(netID, a) && (!ok || (own.ip != a && !slices.Contains(own.alias, a))) {
				return false
			}
		}
		return true
	}
	switch ref.Type {
	case "server":
		if s, ok := w.servers.get(ref.ID); ok {
			s.PrivateNet = slices.DeleteFunc(s.PrivateNet, func(pn schema.ServerPrivateNet) bool {
				return !keep(pn.Network, append([]string{pn.IP}, pn.AliasIPs...)...)
			})
		}
	case "load_balancer":
		if lb, ok := w.loadBalancers.get(ref.ID); ok {
			lb.PrivateNet = slices.DeleteFunc(lb.PrivateNet, func(pn schema.LoadBalancerPrivateNet) bool { return !keep(pn.Network, pn.IP) })
			for _, svc := range lb.Services {
				if svc.HTTP != nil {
					svc.HTTP.Certificates = slices.DeleteFunc(svc.HTTP.Certificates, func(id int64) bool { _, ok := w.certificates.get(id); return !ok })
				}
			}
		}
	}
}

// certHeldByAction reports the load balancer whose running action may put
// the certificate back if it fails: until it ends, the certificate is in
// use, as it is on the API, which changes a service when the action ends.
func (w *State) certHeldByAction(id int64) (int64, bool) {
	for _, aid := range w.running {
		a, ok := w.actions.get(aid)
		if !ok || a.Lock.Type != "load_balancer" || a.Undo == nil {
			continue
		}
		var before StoredLoadBalancer
		if json.Unmarshal(a.Undo, &before) != nil {
			continue
		}
		for _, svc := range before.Services {
			if svc.HTTP != nil && slices.Contains(svc.HTTP.Certificates, id) {
				return a.Lock.ID, true
			}
		}
	}
	return 0, false
}
