package hcloudapi

import (
	"bytes"
	"testing"
)

// The snapshot shares nothing with the world: changing every server,
// load balancer and network after it is taken leaves its encoding as it
// was.
func TestSnapshotSharesNothing(t *testing.T) {
	fc := hostileWorld(t, "")
	var snap state
	fc.world.locked(func() {
		var err error
		if snap, err = fc.world.snapshot(); err != nil {
			t.Fatal(err)
		}
	})
	before, err := encodeState(snap)
	if err != nil {
		t.Fatal(err)
	}
	fc.world.locked(func() {
		for _, s := range fc.world.servers.all() {
			s.Labels["changed"] = "yes"
			s.Name += "-x"
			for i := range s.PrivateNet {
				s.PrivateNet[i].IP = "10.9.9.9"
			}
			s.PublicNet.IPv4.DNSPtr = "changed.example.com"
			s.ServerType.Prices = nil
		}
		for _, lb := range fc.world.loadBalancers.all() {
			for i := range lb.Services {
				lb.Services[i].ListenPort++
			}
			lb.Targets = nil
		}
		for _, n := range fc.world.networks.all() {
			n.Subnets[0].IPRange = "10.200.0.0/24"
		}
		for _, a := range fc.world.actions.all() {
			a.Resources[0].ID++
		}
		fc.world.lastID["server"]++
		fc.world.pubIPv4.free = append(fc.world.pubIPv4.free[:0], parseAddr("203.0.113.200"))
	})
	after, err := encodeState(snap)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("changing the world changed a snapshot taken before: the copy shares memory with it")
	}
}
