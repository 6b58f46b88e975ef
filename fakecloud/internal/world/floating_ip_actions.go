package world

import (
	"net/netip"
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// AssignFloatingIP points a floating IP at a server, running or not, in
// its network zone. One assigned elsewhere moves: the Terraform
// provider's acceptance test moves an assignment with one assign call
// (TestAccFloatingIPAssignmentResource, "Move the floating IP to another
// server"). Assigning it to the server that has it answers
// floating_ip_assigned. The action names the server and the floating IP,
// and holds the server while it runs.
func (t *Tx) AssignFloatingIP(id int64, req schema.FloatingIPActionAssignRequest) (schema.Action, *apierr.Error) {
	return act(t, floatingIPs, id, "assign_floating_ip", func(f *schema.FloatingIP) (step, *apierr.Error) {
		s, ok := t.w.Servers.Get(req.Server)
		if !ok {
			return step{}, apierr.InvalidField("server", "server %d does not exist", req.Server)
		}
		if f.Server != nil && *f.Server == s.ID {
			return step{}, apierr.Errorf("floating_ip_assigned", "floating_ip %d is already assigned to server %d", f.ID, s.ID)
		}
		if err := t.w.canTakeFloatingIP(s, f.HomeLocation); err != nil {
			return step{}, err
		}
		ref := Ref{Type: "server", ID: s.ID}
		return step{apply: func() { id := s.ID; f.Server = &id }, holds: []Ref{ref}, family: "floating_ip",
			resources: []Ref{ref, {Type: "floating_ip", ID: f.ID}}}, nil
	})
}

// UnassignFloatingIP takes a floating IP off its server. The description
// names no error for one that is not assigned; fakecloud refuses it
// (invalid_input), the unhelpful reading.
func (t *Tx) UnassignFloatingIP(id int64) (schema.Action, *apierr.Error) {
	return act(t, floatingIPs, id, "unassign_floating_ip", func(f *schema.FloatingIP) (step, *apierr.Error) {
		if f.Server == nil {
			return step{}, apierr.Errorf(apierr.CodeInvalidInput, "floating_ip %d is not assigned", f.ID)
		}
		ref := Ref{Type: "server", ID: *f.Server}
		var holds []Ref
		if _, ok := t.w.Servers.Get(ref.ID); ok {
			holds = []Ref{ref}
		}
		return step{apply: func() { f.Server = nil }, holds: holds, family: "floating_ip",
			resources: []Ref{ref, {Type: "floating_ip", ID: f.ID}}}, nil
	})
}

// ChangeFloatingIPProtection sets a floating IP's delete protection; a
// request without delete changes nothing.
func (t *Tx) ChangeFloatingIPProtection(id int64, req schema.FloatingIPActionChangeProtectionRequest) (schema.Action, *apierr.Error) {
	return act(t, floatingIPs, id, "change_protection", func(f *schema.FloatingIP) (step, *apierr.Error) {
		if req.Delete == nil {
			return step{}, nil
		}
		on := *req.Delete
		return step{apply: func() { f.Protection.Delete = on }, sets: [][]string{member("protection", "delete")}}, nil
	})
}

// ChangeFloatingIPDNSPtr sets the reverse DNS name of a floating IP's
// address: the IPv4 itself, or an address in the IPv6 network. A null
// name resets an IPv4 to the API's default and removes an IPv6 entry.
func (t *Tx) ChangeFloatingIPDNSPtr(id int64, req schema.FloatingIPActionChangeDNSPtrRequest) (schema.Action, *apierr.Error) {
	return act(t, floatingIPs, id, "change_dns_ptr", func(f *schema.FloatingIP) (step, *apierr.Error) {
		a, ptr, err := ptrRequest(req.IP, req.DNSPtr)
		if err != nil {
			return step{}, err
		}
		if f.Type == "ipv4" {
			if a.String() != f.IP {
				return step{}, apierr.InvalidField("ip", "%s is not the floating IP's address %s", a, f.IP)
			}
			if ptr == "" {
				ptr = DefaultPTR(a)
			}
			return step{apply: func() { f.DNSPtr = []schema.FloatingIPDNSPtr{{IP: a.String(), DNSPtr: ptr}} }, sets: [][]string{member("dns_ptr")}}, nil
		}
		network, nerr := netip.ParsePrefix(f.IP)
		if nerr != nil || !network.Contains(a) {
			return step{}, apierr.InvalidField("ip", "%s is not inside the floating IP's network %s", a, f.IP)
		}
		return step{apply: func() {
			f.DNSPtr = slices.DeleteFunc(f.DNSPtr, func(d schema.FloatingIPDNSPtr) bool { return d.IP == a.String() })
			if ptr != "" {
				f.DNSPtr = append(f.DNSPtr, schema.FloatingIPDNSPtr{IP: a.String(), DNSPtr: ptr})
			}
		}, sets: [][]string{member("dns_ptr")}}, nil
	})
}
