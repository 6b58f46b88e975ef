package doctor

import (
	"context"
	"fmt"
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

// checkPrimaryIPs checks the Primary IPs a Service's annotations
// public-net-ipv4 and -ipv6 name: each exists, is of its family and not
// blocked; for a load balancer still to be created, it is unassigned and
// in the load balancer's location; for one that exists, it is the one the
// load balancer holds, since the annotations apply at creation only.
func (d *doctor) checkPrimaryIPs(ctx context.Context, subject string, c loadbalancer.ServiceConfig, lb *hcloud.LoadBalancer) {
	if c.PublicNet == [2]int64{} {
		return
	}
	fail := func(msg, fix string) { d.found.fail("service", subject, msg, fix) }
	pips, err := d.cloud.primaryIPs.get(ctx, d.api.PrimaryIP.All)
	if err != nil {
		fail(fmt.Sprintf("cannot list Primary IPs: %v", err), "run doctor again")
		return
	}
	for i, id := range c.PublicNet {
		if id == 0 {
			continue
		}
		key, family := []annotation.Key{annotation.PublicNetIPv4, annotation.PublicNetIPv6}[i], []string{"ipv4", "ipv6"}[i]
		j := slices.IndexFunc(pips, func(p *hcloud.PrimaryIP) bool { return p.ID == id })
		if j < 0 {
			fail(fmt.Sprintf("Primary IP %d of %s does not exist", id, key),
				fmt.Sprintf("create one (hcloud primary-ip create --type %s --location <the load balancer's>) and put its ID in %s", family, key))
			continue
		}
		p := pips[j]
		held := lb != nil && (i == 0 && lb.PublicNet.IPv4.ID == id || i == 1 && lb.PublicNet.IPv6.ID == id)
		switch {
		case string(p.Type) != family:
			fail(fmt.Sprintf("Primary IP %d (%s) of %s is of type %s", id, p.Name, key, p.Type), fmt.Sprintf("name a Primary IP of type %s", family))
		case held:
		case lb != nil:
			d.found.warn("service", subject, fmt.Sprintf("load balancer %s is not on Primary IP %d (%s) of %s, which applies only when a load balancer is created", lb.Name, id, p.Name, key),
				fmt.Sprintf("remove %s, or delete and recreate the Service to move to it", key))
		case p.Blocked:
			fail(fmt.Sprintf("Primary IP %d (%s) of %s is blocked", id, p.Name, key), "name another Primary IP")
		case p.AssigneeID != 0:
			fail(fmt.Sprintf("Primary IP %d (%s) of %s is assigned to %s %d: the load balancer cannot be created on it", id, p.Name, key, p.AssigneeType, p.AssigneeID),
				"unassign it (hcloud primary-ip unassign), or name another")
		case c.Location == "":
			d.found.warn("service", subject, fmt.Sprintf("Primary IP %d (%s) of %s is in %s, and no location is set: the load balancer may be created elsewhere in its network zone, where the API refuses it", id, p.Name, key, locationName(p)),
				fmt.Sprintf("set %s to %s", annotation.Location, locationName(p)))
		case locationName(p) != c.Location:
			fail(fmt.Sprintf("Primary IP %d (%s) of %s is in %s, not in the load balancer's location %s", id, p.Name, key, locationName(p), c.Location),
				fmt.Sprintf("set %s to %s, or name a Primary IP in %s", annotation.Location, locationName(p), c.Location))
		}
	}
}

func locationName(p *hcloud.PrimaryIP) string {
	if p.Location == nil {
		return "?"
	}
	return p.Location.Name
}
