package world

import (
	"bytes"
	"testing"
)

// The snapshot shares nothing with the world: changing every server,
// load balancer and network after it is taken leaves its encoding as it
// was.
func TestSnapshotSharesNothing(t *testing.T) {
	w := populated(t)
	var snap Snapshot
	w.locked(func() {
		var err error
		if snap, err = w.snapshot(); err != nil {
			t.Fatal(err)
		}
	})
	before, err := encodeState(snap)
	if err != nil {
		t.Fatal(err)
	}
	w.locked(func() {
		for _, s := range w.servers.all() {
			s.Labels["changed"] = "yes"
			s.Name += "-x"
			for i := range s.PrivateNet {
				s.PrivateNet[i].IP = "10.9.9.9"
			}
			s.PublicNet.IPv4.DNSPtr = "changed.example.com"
			s.ServerType.Prices = nil
		}
		for _, lb := range w.loadBalancers.all() {
			for i := range lb.Services {
				lb.Services[i].ListenPort++
			}
			lb.Targets = nil
		}
		for _, n := range w.networks.all() {
			n.Subnets[0].IPRange = "10.200.0.0/24"
		}
		for _, a := range w.actions.all() {
			a.Resources[0].ID++
		}
		w.lastID["server"]++
		w.pubIPv4.free = append(w.pubIPv4.free[:0], parseAddr("203.0.113.200"))
	})
	after, err := encodeState(snap)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("changing the world changed a snapshot taken before: the copy shares memory with it")
	}
}
