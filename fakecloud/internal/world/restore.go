package world

import (
	"encoding/json"
	"net/netip"
	"reflect"
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

// restore undoes a failed action's change to the resource it locked:
// before is the resource before the change, applied as the change left it
// (nil in snapshots older than the merge: then before is put back whole).
// Changes made since by others stay (revertJSON), and what the undo
// would put back that no longer fits the world is left out (its kind's fit).
func (w *project) restore(ref Ref, before, applied json.RawMessage) {
	k := w.kind(ref.Type)
	k.restore(w, ref.ID, before, applied)
	if k.fit != nil {
		k.fit(w, ref.ID)
	}
	w.ReindexNetworks()
}

// recreate puts back a resource a failed action's change deleted, unless
// its ID was taken meanwhile, and what no longer fits the world is left
// out (its kind's fit).
func (w *project) recreate(ref Ref, before json.RawMessage) {
	k := w.kind(ref.Type)
	if k.exists(w, ref.ID) || before == nil {
		return
	}
	k.recreate(w, ref.ID, before)
	if k.fit != nil {
		k.fit(w, ref.ID)
	}
	w.ReindexNetworks()
}

func restoreInto[T any](t *Table[T], id int64, before, applied json.RawMessage) {
	cur, ok := t.Get(id)
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

// ReindexNetworks rebuilds who holds which address in which network from
// the servers' and load balancers' private_net, and the attachments of new
// servers still running.
func (w *project) ReindexNetworks() {
	w.NetMembers = map[int64][]Member{}
	w.NetUsed = map[int64]map[netip.Addr]struct{}{}
	for _, s := range w.Servers.All() {
		for _, pn := range s.PrivateNet {
			m := Member{Ref: Ref{"server", s.ID}, IP: ParseAddr(pn.IP)}
			for _, a := range pn.AliasIPs {
				m.Alias = append(m.Alias, ParseAddr(a))
			}
			w.Attach(pn.Network, m)
		}
	}
	for _, lb := range w.LoadBalancers.All() {
		for _, pn := range lb.PrivateNet {
			w.Attach(pn.Network, Member{Ref: Ref{"load_balancer", lb.ID}, IP: ParseAddr(pn.IP)})
		}
	}
	// A new server's attachment still running holds its address too,
	// while its network exists: one deleted meanwhile took it back.
	for _, id := range w.running {
		a, ok := w.Actions.Get(id)
		if !ok || a.Finish.AttachNetwork == nil {
			continue
		}
		pn := a.Finish.AttachNetwork
		_, server := w.Servers.Get(a.Lock.ID)
		if _, network := w.Networks.Get(pn.Network); server && network {
			w.Attach(pn.Network, Member{Ref: a.Lock, IP: ParseAddr(pn.IP)})
		}
	}
}

func ParseAddr(s string) netip.Addr {
	a, _ := netip.ParseAddr(s)
	return a
}

// fitsNetwork reports whether a restored resource's attachment still
// fits the world: the network exists, each address is inside one of its
// subnets, and no other resource took it meanwhile (the index still holds
// the resource's own addresses).
func (w *project) fitsNetwork(ref Ref, netID int64, ips ...string) bool {
	n, ok := w.Networks.Get(netID)
	if !ok {
		return false
	}
	for _, ip := range ips {
		a := ParseAddr(ip)
		if !slices.ContainsFunc(n.Subnets, func(sub schema.NetworkSubnet) bool {
			p, err := netip.ParsePrefix(sub.IPRange)
			return err == nil && p.Contains(a)
		}) {
			return false
		}
		if own, ok := w.MemberOf(netID, ref); w.IPInUse(netID, a) && (!ok || (own.IP != a && !slices.Contains(own.Alias, a))) {
			return false
		}
	}
	return true
}

// CertHeldByAction reports the load balancer whose running action may put
// the certificate back if it fails: until it ends, the certificate is in
// use, as it is on the API, which changes a service when the action ends.
func (w *project) CertHeldByAction(id int64) (int64, bool) {
	for _, aid := range w.running {
		a, ok := w.Actions.Get(aid)
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
