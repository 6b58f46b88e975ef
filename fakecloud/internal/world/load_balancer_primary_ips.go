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
