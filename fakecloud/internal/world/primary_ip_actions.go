package world

import (
	"net/netip"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// ChangePrimaryIPProtection sets a primary IP's delete protection.
func (t *Tx) ChangePrimaryIPProtection(id int64, req schema.PrimaryIPActionChangeProtectionRequest) (schema.Action, *apierr.Error) {
	return act(t, primaryIPs, id, "change_protection", func(p *schema.PrimaryIP) (step, *apierr.Error) {
		return step{apply: func() { p.Protection.Delete = req.Delete }, sets: [][]string{member("protection", "delete")}}, nil
	})
}

// ChangePrimaryIPDNSPtr sets the reverse DNS name of a primary IP's
// address: the IPv4 itself, or an address in the IPv6 network. A null
// name resets an IPv4 to the API's default and removes an IPv6 entry. The
// server or load balancer the primary IP is assigned to shows the same
// name; the action holds it, as its stored copy changes too.
func (t *Tx) ChangePrimaryIPDNSPtr(id int64, req schema.PrimaryIPActionChangeDNSPtrRequest) (schema.Action, *apierr.Error) {
	return act(t, primaryIPs, id, "change_dns_ptr", func(p *schema.PrimaryIP) (step, *apierr.Error) {
		a, ptr, err := ptrRequest(req.IP, req.DNSPtr)
		if err != nil {
			return step{}, err
		}
		if p.Type == "ipv4" {
			if a.String() != p.IP {
				return step{}, apierr.InvalidField("ip", "%s is not the primary IP's address %s", a, p.IP)
			}
		} else if network, nerr := netip.ParsePrefix(p.IP); nerr != nil || !network.Contains(a) {
			return step{}, apierr.InvalidField("ip", "%s is not inside the primary IP's network %s", a, p.IP)
		}
		return step{holds: t.w.pipAssigneeRef(p), sets: [][]string{member("dns_ptr")}, apply: func() { t.w.setPIPPTR(p, a, ptr) }}, nil
	})
}
