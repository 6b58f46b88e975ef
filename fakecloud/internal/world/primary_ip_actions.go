package world

import (
	"net/netip"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// ChangePrimaryIPProtection sets a primary IP's delete protection.
func (t *Tx) ChangePrimaryIPProtection(id int64, req schema.PrimaryIPActionChangeProtectionRequest) (schema.Action, *apierr.Error) {
	p, err := find(&t.w.PrimaryIPs, "primary_ip", id)
	if err != nil {
		return schema.Action{}, err
	}
	return t.w.primaryIPOwnAction(p, "change_protection", func() { p.Protection.Delete = req.Delete })
}

// ChangePrimaryIPDNSPtr sets the reverse DNS name of a primary IP's
// address: the IPv4 itself, or an address in the IPv6 network. A null
// name resets an IPv4 to the API's default and removes an IPv6 entry. The
// server the primary IP is assigned to shows the same name.
func (t *Tx) ChangePrimaryIPDNSPtr(id int64, req schema.PrimaryIPActionChangeDNSPtrRequest) (schema.Action, *apierr.Error) {
	p, err := find(&t.w.PrimaryIPs, "primary_ip", id)
	if err != nil {
		return schema.Action{}, err
	}
	a, perr := netip.ParseAddr(req.IP)
	if perr != nil {
		return schema.Action{}, apierr.InvalidField("ip", "%q is not an IP address", req.IP)
	}
	ptr := ""
	if req.DNSPtr != nil {
		ptr = *req.DNSPtr
	}
	var server *StoredServer
	if p.AssigneeID != nil && p.AssigneeType == "server" {
		server, _ = t.w.Servers.Get(*p.AssigneeID)
	}
	if p.Type == "ipv4" {
		if a.String() != p.IP {
			return schema.Action{}, apierr.InvalidField("ip", "%s is not the primary IP's address %s", a, p.IP)
		}
		if ptr == "" {
			ptr = DefaultPTR(a)
		}
		return t.w.primaryIPOwnAction(p, "change_dns_ptr", func() {
			p.DNSPtr = []schema.PrimaryIPDNSPTR{{IP: a.String(), DNSPtr: ptr}}
			if server != nil {
				server.PublicNet.IPv4.DNSPtr = ptr
			}
		})
	}
	network, nerr := netip.ParsePrefix(p.IP)
	if nerr != nil || !network.Contains(a) {
		return schema.Action{}, apierr.InvalidField("ip", "%s is not inside the primary IP's network %s", a, p.IP)
	}
	return t.w.primaryIPOwnAction(p, "change_dns_ptr", func() {
		SetPrimaryIPv6PTR(p, a, ptr)
		if server != nil {
			SetServerIPv6PTR(server, a, ptr)
		}
	})
}

// primaryIPOwnAction starts an action on the primary IP alone and makes
// its change, unless the action is planned to fail: then nothing changes.
func (w *project) primaryIPOwnAction(p *schema.PrimaryIP, command string, change func()) (schema.Action, *apierr.Error) {
	ref := Ref{Type: "primary_ip", ID: p.ID}
	if err := w.CheckLock(ref); err != nil {
		return schema.Action{}, err
	}
	a := w.StartAction(ActionSpec{Command: command, Resources: []Ref{ref}, Family: "primary_ip"})
	if a.Fail == nil {
		change()
	}
	return w.ViewAction(a), nil
}
