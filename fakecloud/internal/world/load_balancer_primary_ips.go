package world

import (
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// lbPrimaryIPs resolves the primary IPs a new load balancer takes, with the
// server's checks: [0] the IPv4, [1] the IPv6.
func (w *project) lbPrimaryIPs(f *apierr.Fields, pn *schema.LoadBalancerCreateRequestPublicNet, public bool) ([2]*schema.PrimaryIP, *apierr.Error) {
	if pn == nil {
		return [2]*schema.PrimaryIP{}, nil
	}
	if !public && (pn.IPv4 != 0 || pn.IPv6 != 0) {
		f.Add("public_net", "needs public_interface true")
		return [2]*schema.PrimaryIP{}, nil
	}
	return w.givenPrimaryIPs(f, &serverCreatePublicNet{IPv4ID: pn.IPv4, IPv6ID: pn.IPv6})
}

// The API tracks a load balancer's deletion with an action since it
// takes primary IPs (hcloud-go v2.52.0's notes: "As part of our work on
// supporting existing Primary IPs for Load Balancers, deleting a Load
// Balancer is now tracked with an Action"; the official CCM v1.39.0 waits
// for it). When the primary IPs are free again is not documented;
// fakecloud takes the reading a client must survive: those the load
// balancer held stay locked until its delete_load_balancer ends, so a
// load balancer made on them before that is refused with locked.

// lbDeleteHolds are the primary IPs a deleted load balancer held that
// outlive it (auto_delete false), for its delete_load_balancer to hold
// while it runs. Call it after the load balancer's deletion has
// unassigned them: as they are now is what a failed action leaves.
func (w *project) lbDeleteHolds(held ...int64) []UndoOf {
	var out []UndoOf
	for _, id := range held {
		ref := Ref{Type: "primary_ip", ID: id}
		if _, ok := w.PrimaryIPs.Get(id); id != 0 && ok {
			out = append(out, UndoOf{Resource: ref, Before: w.snapshotOf(ref)})
		}
	}
	return out
}

// primaryIPAddress is a new primary IP's address. With load balancers
// carrying traffic (Options.LBIPv4Range), an IPv4 one made unassigned
// comes from the traffic range, so that a load balancer made on it
// carries traffic as one with an address of its own does.
func (w *project) primaryIPAddress(family string, assigned bool) (string, *apierr.Error) {
	if family != "ipv4" || assigned || !w.LBIPv4.IsValid() {
		return w.newPublicAddress(family)
	}
	a, ok := w.LBPublicIPv4()
	if !ok {
		return "", apierr.Errorf(apierr.CodeResourceUnavailable, "no public IPv4 address is left")
	}
	return a.String(), nil
}
