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
	w.w.Locked(func() {
		var err error
		if snap, err = w.w.Snapshot(); err != nil {
			t.Fatal(err)
		}
	})
	before, err := EncodeState(snap)
	if err != nil {
		t.Fatal(err)
	}
	w.w.Locked(func() {
		for _, s := range w.w.Servers.All() {
			s.Labels["changed"] = "yes"
			s.Name += "-x"
			for i := range s.PrivateNet {
				s.PrivateNet[i].IP = "10.9.9.9"
			}
			s.PublicNet.IPv4.DNSPtr = "changed.example.com"
			s.ServerType.Prices = nil
		}
		for _, lb := range w.w.LoadBalancers.All() {
			for i := range lb.Services {
				lb.Services[i].ListenPort++
			}
			lb.Targets = nil
		}
		for _, n := range w.w.Networks.All() {
			n.Subnets[0].IPRange = "10.200.0.0/24"
		}
		for _, a := range w.w.Actions.All() {
			a.Resources[0].ID++
		}
		w.w.LastID["server"]++
		w.w.PubIPv4.Free = append(w.w.PubIPv4.Free[:0], ParseAddr("203.0.113.200"))
	})
	after, err := EncodeState(snap)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("changing the world changed a snapshot taken before: the copy shares memory with it")
	}
}
