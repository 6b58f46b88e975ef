package world

import (
	"net/netip"
	"slices"
	"strconv"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/listing"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/netaddr"
)

// networks is the network kind's handle.
var networks = kindOf[schema.Network]{"network", func(w *project) *Table[schema.Network] { return &w.Networks }}

// networkKind declares networks to the world's mechanisms. A network held
// by an action answers conflict, as the API documents for networks.
func networkKind() kind {
	return networks.declare(kind{
		idBase:   300000,
		commands: []string{"add_subnet", "delete_subnet", "add_route", "delete_route", "change_ip_range", "change_protection"},
		locked: func(id int64) *apierr.Error {
			return apierr.Errorf(apierr.CodeConflict, "network %d is being changed by a running action, please retry", id)
		},
	})
}

const (
	maxRoutes  = 100
	maxSubnets = 50
)

// Network is the network with the ID.
func (t *Tx) Network(id int64) (schema.Network, *apierr.Error) {
	n, err := networks.find(t.w, id)
	if err != nil {
		return schema.Network{}, err
	}
	return t.w.ViewNetwork(n), nil
}

// Networks lists the networks a query selects, one page of them, and how
// many it selects in all.
func (t *Tx) Networks(q listing.Query) ([]schema.Network, int, *apierr.Error) {
	items := slices.DeleteFunc(t.w.Networks.All(), func(n *schema.Network) bool { return !q.Keeps(n.Name, n.Labels) })
	return listing.Page(items, q, networkSortKeys, t.w.ViewNetwork)
}

// CreateNetwork creates a network with its subnets and routes.
func (t *Tx) CreateNetwork(req schema.NetworkCreateRequest) (schema.Network, *apierr.Error) {
	w := t.w
	var f apierr.Fields
	CheckName(&f, "name", req.Name)
	if _, dup := w.Networks.Find(func(n *schema.Network) bool { return n.Name == req.Name }); dup {
		return schema.Network{}, apierr.NotUnique("name", "network name %q is already used", req.Name)
	}
	ipRange, ok := parseNetworkRange(&f, "ip_range", req.IPRange)
	n := &schema.Network{Name: req.Name, IPRange: req.IPRange, Labels: DerefLabels(req.Labels),
		ExposeRoutesToVSwitch: req.ExposeRoutesToVSwitch, Subnets: []schema.NetworkSubnet{}, Routes: []schema.NetworkRoute{}}
	ValidateLabels(&f, "labels", n.Labels)
	if ok {
		n.IPRange = ipRange.String()
		for i, sn := range req.Subnets {
			sub, serr := checkSubnet(w, n, ipRange, schema.NetworkActionAddSubnetRequest{Type: sn.Type, IPRange: sn.IPRange, NetworkZone: sn.NetworkZone, VSwitchID: sn.VSwitchID})
			if serr != "" {
				f.Add(fieldAt("subnets", i, "ip_range"), "%s", serr)
				continue
			}
			n.Subnets = append(n.Subnets, sub)
		}
		for i, rt := range req.Routes {
			route, rerr := netaddr.CheckRoute(n, ipRange, rt.Destination, rt.Gateway)
			if rerr != "" {
				f.Add(fieldAt("routes", i, "destination"), "%s", rerr)
				continue
			}
			n.Routes = append(n.Routes, route)
		}
	}
	if len(req.Routes) > maxRoutes {
		return schema.Network{}, apierr.LimitExceeded("routes", "a network has at most %d routes", maxRoutes)
	}
	if err := f.Err(); err != nil {
		return schema.Network{}, err
	}
	n.ID = w.NewID("network")
	n.Created = w.Now().UTC().Truncate(time.Second)
	w.Networks.Put(n.ID, n)
	return w.ViewNetwork(n), nil
}

// UpdateNetwork renames and relabels a network and sets whether its
// routes are exposed to a vSwitch.
func (t *Tx) UpdateNetwork(id int64, req schema.NetworkUpdateRequest) (schema.Network, *apierr.Error) {
	n, err := networks.find(t.w, id)
	if err != nil {
		return schema.Network{}, err
	}
	taken := NameTaken(&t.w.Networks, func(o *schema.Network) string { return o.Name })
	if err := RenameRelabel("network", NonEmpty(req.Name), req.Labels, CheckName, taken, &n.Name, &n.Labels); err != nil {
		return schema.Network{}, err
	}
	if req.ExposeRoutesToVSwitch != nil {
		n.ExposeRoutesToVSwitch = *req.ExposeRoutesToVSwitch
	}
	return t.w.ViewNetwork(n), nil
}

// DeleteNetwork deletes a network; attached resources are detached, as
// the API documents.
func (t *Tx) DeleteNetwork(id int64) *apierr.Error {
	w := t.w
	n, err := networks.find(w, id)
	if err != nil {
		return err
	}
	if n.Protection.Delete {
		return apierr.Protected("network", n.ID)
	}
	if err := w.checkFree(Ref{Type: "network", ID: n.ID}); err != nil {
		return err
	}
	for _, m := range slices.Clone(w.NetMembers[n.ID]) {
		w.Detach(m, n.ID)
	}
	delete(w.NetMembers, n.ID)
	delete(w.NetUsed, n.ID)
	delete(w.NetHint, n.ID)
	w.Networks.Del(n.ID)
	return nil
}

func fieldAt(list string, i int, field string) string {
	return list + "[" + strconv.Itoa(i) + "]." + field
}

var networkSortKeys = listing.ByIDNameCreated(
	func(n *schema.Network) int64 { return n.ID },
	func(n *schema.Network) string { return n.Name },
	func(n *schema.Network) int64 { return n.Created.Unix() })

// AddSubnet adds a subnet to a network.
func (t *Tx) AddSubnet(id int64, req schema.NetworkActionAddSubnetRequest) (schema.Action, *apierr.Error) {
	return act(t, networks, id, "add_subnet", func(n *schema.Network) (step, *apierr.Error) {
		ipRange, _ := netip.ParsePrefix(n.IPRange)
		if len(n.Subnets) >= maxSubnets {
			return step{}, apierr.LimitExceeded("subnets", "a network has at most %d subnets", maxSubnets)
		}
		sub, msg := checkSubnet(t.w, n, ipRange, req)
		if msg != "" {
			return step{}, apierr.InvalidField("ip_range", "%s", msg)
		}
		return step{apply: func() { n.Subnets = append(n.Subnets, sub) }}, nil
	})
}

// DeleteSubnet deletes a subnet that holds no attached resource. One that
// does answers service_error "network has attached resources", the
// answer the Terraform provider retries on (and its older "servers are
// attached") while the servers it detaches in parallel let go.
func (t *Tx) DeleteSubnet(id int64, req schema.NetworkActionDeleteSubnetRequest) (schema.Action, *apierr.Error) {
	return act(t, networks, id, "delete_subnet", func(n *schema.Network) (step, *apierr.Error) {
		p, msg := netaddr.ParseIPv4Net(req.IPRange)
		if msg != "" {
			return step{}, apierr.InvalidField("ip_range", "%s", msg)
		}
		i := slices.IndexFunc(n.Subnets, func(s schema.NetworkSubnet) bool { return s.IPRange == p.String() })
		if i < 0 {
			return step{}, apierr.InvalidField("ip_range", "network %d has no subnet %q", n.ID, req.IPRange)
		}
		for _, m := range t.w.NetMembers[n.ID] {
			if p.Contains(m.IP) {
				return step{}, apierr.Errorf(apierr.CodeServiceError, "network has attached resources in subnet %s; detach them first", p)
			}
		}
		return step{apply: func() {
			n.Subnets = slices.DeleteFunc(n.Subnets, func(s schema.NetworkSubnet) bool { return s.IPRange == p.String() })
		}}, nil
	})
}

// AddRoute adds a route to a network.
func (t *Tx) AddRoute(id int64, req schema.NetworkActionAddRouteRequest) (schema.Action, *apierr.Error) {
	return act(t, networks, id, "add_route", func(n *schema.Network) (step, *apierr.Error) {
		ipRange, _ := netip.ParsePrefix(n.IPRange)
		if len(n.Routes) >= maxRoutes {
			return step{}, apierr.LimitExceeded("routes", "a network has at most %d routes", maxRoutes)
		}
		route, msg := netaddr.CheckRoute(n, ipRange, req.Destination, req.Gateway)
		if msg != "" {
			return step{}, apierr.InvalidField("destination", "%s", msg)
		}
		return step{apply: func() { n.Routes = append(n.Routes, route) }}, nil
	})
}

// DeleteRoute deletes a route of a network.
func (t *Tx) DeleteRoute(id int64, req schema.NetworkActionDeleteRouteRequest) (schema.Action, *apierr.Error) {
	return act(t, networks, id, "delete_route", func(n *schema.Network) (step, *apierr.Error) {
		d, msg := netaddr.ParseIPv4Net(req.Destination)
		if msg != "" {
			return step{}, apierr.InvalidField("destination", "%s", msg)
		}
		g, gerr := netip.ParseAddr(req.Gateway)
		match := func(r schema.NetworkRoute) bool {
			return gerr == nil && r.Destination == d.String() && r.Gateway == g.String()
		}
		if !slices.ContainsFunc(n.Routes, match) {
			return step{}, apierr.InvalidField("destination", "network %d has no route %s via %s", n.ID, req.Destination, req.Gateway)
		}
		return step{apply: func() { n.Routes = slices.DeleteFunc(n.Routes, match) }}, nil
	})
}

// ChangeIPRange widens a network's range.
func (t *Tx) ChangeIPRange(id int64, req schema.NetworkActionChangeIPRangeRequest) (schema.Action, *apierr.Error) {
	return act(t, networks, id, "change_ip_range", func(n *schema.Network) (step, *apierr.Error) {
		old, _ := netip.ParsePrefix(n.IPRange)
		var f apierr.Fields
		p, ok := parseNetworkRange(&f, "ip_range", req.IPRange)
		if ok && !netaddr.Within(old, p) {
			f.Add("ip_range", "the new range %s must contain the current range %s", p, old)
		}
		if err := f.Err(); err != nil {
			return step{}, err
		}
		return step{apply: func() { n.IPRange = p.String() }}, nil
	})
}

// ChangeNetworkProtection sets a network's delete protection.
func (t *Tx) ChangeNetworkProtection(id int64, req schema.NetworkActionChangeProtectionRequest) (schema.Action, *apierr.Error) {
	return act(t, networks, id, "change_protection", func(n *schema.Network) (step, *apierr.Error) {
		var sets [][]string
		if req.Delete != nil {
			sets = append(sets, member("protection", "delete"))
		}
		return step{apply: func() {
			if req.Delete != nil {
				n.Protection.Delete = *req.Delete
			}
		}, sets: sets}, nil
	})
}

// parseNetworkRange checks a network ip_range: an RFC 1918 prefix of /24 or larger.
func parseNetworkRange(f *apierr.Fields, field, s string) (netip.Prefix, bool) {
	p, msg := netaddr.NetworkRange(s)
	if msg != "" {
		f.Add(field, "%s", msg)
		return netip.Prefix{}, false
	}
	return p, true
}

// checkSubnet validates a subnet for a network in w's catalogue's zones.
func checkSubnet(w *project, n *schema.Network, ipRange netip.Prefix, req schema.NetworkActionAddSubnetRequest) (schema.NetworkSubnet, string) {
	return netaddr.CheckSubnet(w.Cat.NetworkZone, n, ipRange, req)
}
