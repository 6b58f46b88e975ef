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
// server the primary IP is assigned to shows the same name.
func (t *Tx) ChangePrimaryIPDNSPtr(id int64, req schema.PrimaryIPActionChangeDNSPtrRequest) (schema.Action, *apierr.Error) {
	return act(t, primaryIPs, id, "change_dns_ptr", func(p *schema.PrimaryIP) (step, *apierr.Error) {
		a, ptr, err := ptrRequest(req.IP, req.DNSPtr)
		if err != nil {
			return step{}, err
		}
		var server *StoredServer
		var holds []Ref
		if p.AssigneeID != nil && p.AssigneeType == "server" {
			if server, _ = t.w.Servers.Get(*p.AssigneeID); server != nil {
				holds = []Ref{{Type: "server", ID: server.ID}}
			}
		}
		if p.Type == "ipv4" {
			if a.String() != p.IP {
				return step{}, apierr.InvalidField("ip", "%s is not the primary IP's address %s", a, p.IP)
			}
			if ptr == "" {
				ptr = DefaultPTR(a)
			}
			return step{holds: holds, sets: [][]string{member("dns_ptr")}, apply: func() {
				p.DNSPtr = []schema.PrimaryIPDNSPTR{{IP: a.String(), DNSPtr: ptr}}
				if server != nil {
					server.PublicNet.IPv4.DNSPtr = ptr
				}
			}}, nil
		}
		network, nerr := netip.ParsePrefix(p.IP)
		if nerr != nil || !network.Contains(a) {
			return step{}, apierr.InvalidField("ip", "%s is not inside the primary IP's network %s", a, p.IP)
		}
		return step{holds: holds, sets: [][]string{member("dns_ptr")}, apply: func() {
			SetPrimaryIPv6PTR(p, a, ptr)
			if server != nil {
				SetServerIPv6PTR(server, a, ptr)
			}
		}}, nil
	})
}
