package world

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/listing"
)

// Floating IPs are addresses a project keeps and points at one server at
// a time: an IPv4 address, or an IPv6 /64. A floating IP names its server
// (server); a server's view lists the floating IPs that name it, so
// assigning and unassigning change the floating IP alone, undone with it.

// floatingIPs is the floating IP kind's handle; the registry keeps its
// table, and a snapshot its list under kinds.
var floatingIPs, floatingIPTable = ownKind("floating_ip", func(f *schema.FloatingIP) (int64, string) { return f.ID, f.Name })

// floatingIPKind declares floating IPs: a deleted server's are
// unassigned and stay, and a server's view lists those assigned to it.
func floatingIPKind() kind {
	return floatingIPs.declare(kind{
		idBase:   900000,
		own:      floatingIPTable,
		commands: []string{"assign_floating_ip", "unassign_floating_ip", "change_dns_ptr", "change_protection"},
		forget:   func(w *project, gone Ref) { forgetServer(floatingIPs.table(w), floatingIPServer, gone) },
		// A restored floating IP is not given back to a server deleted since.
		fit: func(w *project, id int64) { fitServer(w, floatingIPs.table(w), floatingIPServer, id) },
		protect: func(w *project, id int64, on bool) {
			if f, ok := floatingIPs.table(w).Get(id); ok {
				f.Protection.Delete = on
			}
		},
		onServer: func(w *project, s *StoredServer, v *ServerView) {
			v.PublicNet.FloatingIPs = w.floatingIPsOf(s.ID)
		},
		check: checkFloatingIPs,
	})
}

// floatingIPServer is where a floating IP names its server.
func floatingIPServer(f *schema.FloatingIP) **int64 { return &f.Server }

// floatingIPsOf lists the floating IPs assigned to a server, in ID order.
func (w *project) floatingIPsOf(server int64) []int64 {
	return linkedTo(floatingIPs.table(w), floatingIPServer, func(f *schema.FloatingIP) int64 { return f.ID }, server)
}

// FloatingIP is the floating IP with the ID.
func (t *Tx) FloatingIP(id int64) (schema.FloatingIP, *apierr.Error) {
	f, err := floatingIPs.find(t.w, id)
	if err != nil {
		return schema.FloatingIP{}, err
	}
	return viewFloatingIP(f), nil
}

// FloatingIPs lists the floating IPs a query selects, one page of them,
// and how many it selects in all.
func (t *Tx) FloatingIPs(q listing.Query) ([]schema.FloatingIP, int, *apierr.Error) {
	items := slices.DeleteFunc(floatingIPs.table(t.w).All(), func(f *schema.FloatingIP) bool { return !q.Keeps(f.Name, f.Labels) })
	keys := listing.ByIDNameCreated(func(f *schema.FloatingIP) int64 { return f.ID },
		func(f *schema.FloatingIP) string { return f.Name }, func(f *schema.FloatingIP) int64 { return f.Created.Unix() })
	return listing.Page(items, q, keys, viewFloatingIP)
}

// FloatingIPCreateRequest is POST /floating_ips: home_location takes an ID
// or a name, as the description allows.
type FloatingIPCreateRequest struct {
	Type         string             `json:"type"`
	Server       *int64             `json:"server,omitempty"`
	HomeLocation *schema.IDOrName   `json:"home_location,omitempty"`
	Description  *string            `json:"description,omitempty"`
	Name         *string            `json:"name,omitempty"`
	Labels       *map[string]string `json:"labels,omitempty"`
}

// FloatingIPCreated is what creating a floating IP answers: one assigned
// at once comes with its assign action.
type FloatingIPCreated struct {
	FloatingIP schema.FloatingIP `json:"floating_ip"`
	Action     *schema.Action    `json:"action"`
}

// CreateFloatingIP makes a floating IP homed in a location, or assigned
// at once to a server and homed in the server's location. The API names
// one it was given no name for; fakecloud names it floating-ip-<ID>.
func (t *Tx) CreateFloatingIP(req FloatingIPCreateRequest) (FloatingIPCreated, *apierr.Error) {
	var f apierr.Fields
	if req.Name != nil {
		CheckName(&f, "name", *req.Name)
	}
	labels := DerefLabels(req.Labels)
	ValidateLabels(&f, "labels", labels)
	if req.Type != "ipv4" && req.Type != "ipv6" {
		f.Add("type", "%q is not one of ipv4, ipv6", req.Type)
	}
	var s *StoredServer
	var loc schema.Location
	if req.HomeLocation != nil {
		var ok bool
		if loc, ok = t.w.Cat.Location(idOrNameString(*req.HomeLocation)); !ok {
			f.Add("home_location", "%q is not a location", idOrNameString(*req.HomeLocation))
		}
	}
	switch {
	case req.Server != nil:
		var ok bool
		if s, ok = t.w.Servers.Get(*req.Server); !ok {
			f.Add("server", "server %d does not exist", *req.Server)
		} else if req.HomeLocation == nil {
			loc = s.Location
		}
	case req.HomeLocation == nil:
		f.Add("home_location", "is required without server")
	}
	if err := f.Err(); err != nil {
		return FloatingIPCreated{}, err
	}
	table := floatingIPs.table(t.w)
	if req.Name != nil && NameTaken(table, func(o *schema.FloatingIP) string { return o.Name })(*req.Name) {
		return FloatingIPCreated{}, apierr.NotUnique("name", "floating IP name %q is already used", *req.Name)
	}
	if s != nil {
		if err := t.w.canTakeFloatingIP(s, loc); err != nil {
			return FloatingIPCreated{}, err
		}
		if err := t.w.checkFree(Ref{Type: "server", ID: s.ID}); err != nil {
			return FloatingIPCreated{}, err
		}
	}
	ip, err := t.w.newPublicAddress(req.Type)
	if err != nil {
		return FloatingIPCreated{}, err
	}
	ptr := []schema.FloatingIPDNSPtr{}
	if a, perr := netip.ParseAddr(ip); perr == nil {
		ptr = append(ptr, schema.FloatingIPDNSPtr{IP: ip, DNSPtr: DefaultPTR(a)})
	}
	fip := &schema.FloatingIP{ID: t.w.NewID("floating_ip"), Type: req.Type, IP: ip, DNSPtr: ptr, HomeLocation: loc,
		Description: req.Description, Labels: labels, Created: t.w.Now().UTC().Truncate(time.Second)}
	if req.Name != nil {
		fip.Name = *req.Name
	} else {
		fip.Name = freeName(table, func(o *schema.FloatingIP) string { return o.Name }, fmt.Sprintf("floating-ip-%d", fip.ID))
	}
	table.Put(fip.ID, fip)
	out := FloatingIPCreated{}
	if s != nil {
		// Assigned by an action that holds the server; a failed one
		// leaves the floating IP unassigned.
		ref, srv := Ref{Type: "floating_ip", ID: fip.ID}, Ref{Type: "server", ID: s.ID}
		before := t.w.snapshotOf(ref)
		id := s.ID
		fip.Server = &id
		a := t.w.startAction(ActionSpec{Command: "assign_floating_ip", Family: "floating_ip", Lock: srv,
			Resources: []Ref{srv, ref}, UndoAlso: []UndoOf{{Resource: ref, Before: before}}})
		v := t.w.ViewAction(a)
		out.Action = &v
	}
	out.FloatingIP = viewFloatingIP(fip)
	return out, nil
}

// FloatingIPUpdateRequest is PUT /floating_ips/{id}; a name given empty is
// refused rather than ignored, and a null description clears it.
type FloatingIPUpdateRequest struct {
	Name        *string            `json:"name,omitempty"`
	Description Optional[string]   `json:"description"`
	Labels      *map[string]string `json:"labels,omitempty"`
}

// UpdateFloatingIP renames, relabels or describes a floating IP, with no
// action.
func (t *Tx) UpdateFloatingIP(id int64, req FloatingIPUpdateRequest) (schema.FloatingIP, *apierr.Error) {
	f, err := floatingIPs.find(t.w, id)
	if err != nil {
		return schema.FloatingIP{}, err
	}
	taken := NameTaken(floatingIPs.table(t.w), func(o *schema.FloatingIP) string { return o.Name })
	if err := RenameRelabel("floating IP", req.Name, req.Labels, CheckName, taken, &f.Name, &f.Labels); err != nil {
		return schema.FloatingIP{}, err
	}
	if req.Description.Set {
		f.Description = req.Description.Value
	}
	return viewFloatingIP(f), nil
}

// DeleteFloatingIP deletes an unassigned, unprotected floating IP: since
// 1 May 2026 an assigned one answers must_be_unassigned (the description
// of DELETE /floating_ips/{id}).
func (t *Tx) DeleteFloatingIP(id int64) *apierr.Error {
	f, err := floatingIPs.find(t.w, id)
	if err != nil {
		return err
	}
	if f.Protection.Delete {
		return apierr.Protected("floating_ip", f.ID)
	}
	if f.Server != nil {
		return apierr.Errorf("must_be_unassigned", "floating_ip %d is assigned to server %d; unassign it first", f.ID, *f.Server)
	}
	if err := t.w.checkFree(Ref{Type: "floating_ip", ID: f.ID}); err != nil {
		return err
	}
	if f.Type == "ipv4" {
		t.w.PubIPv4.Release(f.IP)
	}
	floatingIPs.table(t.w).Del(f.ID)
	return nil
}

// SetFloatingIPBlocked marks a seed's floating IP blocked, as the
// provider blocks an address (for abuse); the API offers no way to.
func (t *Tx) SetFloatingIPBlocked(id int64, blocked bool) {
	if f, ok := floatingIPs.table(t.w).Get(id); ok {
		f.Blocked = blocked
	}
}

// canTakeFloatingIP refuses a server outside the floating IP's network
// zone. The description says a floating IP can be assigned in any
// location; Hetzner's own tools move them within a network zone only
// (yah-floating-ip-adapters, "reassign via API within a network zone",
// verified 2026-07), and fakecloud takes that, the stricter reading.
func (w *project) canTakeFloatingIP(s *StoredServer, home schema.Location) *apierr.Error {
	if s.Location.NetworkZone != home.NetworkZone {
		return apierr.InvalidField("server", "server %d is in network zone %s, the floating IP's home location %s in %s",
			s.ID, s.Location.NetworkZone, home.Name, home.NetworkZone)
	}
	return nil
}

// viewFloatingIP is a floating IP as the API shows it.
func viewFloatingIP(f *schema.FloatingIP) schema.FloatingIP {
	v := *f
	v.Labels = CopyLabels(f.Labels)
	v.DNSPtr = append([]schema.FloatingIPDNSPtr{}, f.DNSPtr...)
	if f.Server != nil {
		id := *f.Server
		v.Server = &id
	}
	if f.Description != nil {
		d := *f.Description
		v.Description = &d
	}
	return v
}

// checkFloatingIPs holds each floating IP's address (its IPv4, or its
// /64) and checks the server it names exists; a malformed table is
// reported when it is loaded.
func checkFloatingIPs(data json.RawMessage, c *snapshotCheck) {
	var items []*schema.FloatingIP
	if json.Unmarshal(data, &items) != nil {
		return
	}
	for _, f := range items {
		if f == nil {
			continue
		}
		who := fmt.Sprintf("floating IP %d", f.ID)
		switch f.Type {
		case "ipv4":
			if a, err := netip.ParseAddr(f.IP); err != nil || !a.Is4() {
				c.bad("%s: ip %q is not an IPv4 address", who, f.IP)
			}
			c.holdPublic(f.IP, who)
		case "ipv6":
			if p, err := netip.ParsePrefix(f.IP); err != nil || p.Bits() != 64 || p.Masked() != p {
				c.bad("%s: ip %q is not an IPv6 /64 network", who, f.IP)
			}
			c.holdIPv6(f.IP, who)
		default:
			c.bad("%s: type %q is not one of ipv4, ipv6", who, f.Type)
		}
		if f.Server != nil && !c.servers[*f.Server] {
			c.bad("%s: assigned to server %d, which does not exist", who, *f.Server)
		}
	}
}
