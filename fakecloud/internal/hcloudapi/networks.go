package hcloudapi

import (
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/netaddr"
)

const (
	maxRoutes  = 100
	maxSubnets = 50
)

type networkGet struct {
	Network schema.Network `json:"network"`
}

type networkList struct {
	Networks []schema.Network `json:"networks"`
	Meta     listMeta         `json:"meta"`
}

func (s *Server) mountNetworks(r chi.Router) {
	r.Get("/networks", s.serve(listNetworks))
	r.Post("/networks", s.serve(createNetwork))
	r.Get("/networks/{id}", s.serve(func(c *call) (int, any, *apiError) {
		n, err := c.network()
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, networkGet{c.w.viewNetwork(n)}, nil
	}))
	r.Put("/networks/{id}", s.serve(updateNetwork))
	r.Delete("/networks/{id}", s.serve(deleteNetwork))
	s.actionRoutes(r, "networks", map[string]apiHandler{
		"add_subnet":        networkAddSubnet,
		"delete_subnet":     networkDeleteSubnet,
		"add_route":         networkAddRoute,
		"delete_route":      networkDeleteRoute,
		"change_ip_range":   networkChangeIPRange,
		"change_protection": networkChangeProtection,
	})
}

func (c *call) network() (*schema.Network, *apiError) { return lookup(c, &c.w.networks, "network") }

// networkLock answers conflict while an action runs on the network, as the
// API documents for networks.
func (w *liveWorld) networkLock(id int64) *apiError {
	if err := w.checkLock(resourceRef{"network", id}); err != nil {
		return errorf(codeConflict, "network %d is being changed by a running action, please retry", id)
	}
	return nil
}

// viewNetwork is the network as the API shows it, with its members.
func (w *liveWorld) viewNetwork(n *schema.Network) schema.Network {
	v := *n
	v.Labels = copyLabels(n.Labels)
	v.Subnets = append([]schema.NetworkSubnet{}, n.Subnets...)
	v.Routes = append([]schema.NetworkRoute{}, n.Routes...)
	v.Servers = []int64{}
	v.LoadBalancers = []int64{}
	for _, m := range w.netMembers[n.ID] {
		switch m.Type {
		case "server":
			v.Servers = append(v.Servers, m.ID)
		case "load_balancer":
			v.LoadBalancers = append(v.LoadBalancers, m.ID)
		}
	}
	slices.Sort(v.Servers)
	v.Servers = slices.Compact(v.Servers)
	slices.Sort(v.LoadBalancers)
	v.LoadBalancers = slices.Compact(v.LoadBalancers)
	return v
}

var networkSortKeys = byIDNameCreated(
	func(n *schema.Network) int64 { return n.ID },
	func(n *schema.Network) string { return n.Name },
	func(n *schema.Network) int64 { return n.Created.Unix() })

func listNetworks(c *call) (int, any, *apiError) {
	q, err := parseList(c.r)
	if err != nil {
		return 0, nil, err
	}
	items := slices.DeleteFunc(c.w.networks.all(), func(n *schema.Network) bool {
		return (q.hasName && n.Name != q.name) || (q.hasSelector && !q.selector.Matches(n.Labels))
	})
	if err := applySort(items, q.sort, networkSortKeys); err != nil {
		return 0, nil, err
	}
	page, meta := paginate(c.header, c.r, items, q)
	out := networkList{Networks: make([]schema.Network, 0, len(page)), Meta: meta}
	for _, n := range page {
		out.Networks = append(out.Networks, c.w.viewNetwork(n))
	}
	return http.StatusOK, out, nil
}

func createNetwork(c *call) (int, any, *apiError) {
	var req schema.NetworkCreateRequest
	if err := c.decode(&req); err != nil {
		return 0, nil, err
	}
	var f fieldErrors
	checkName(&f, "name", req.Name)
	if _, dup := c.w.networks.find(func(n *schema.Network) bool { return n.Name == req.Name }); dup {
		return 0, nil, notUnique("name", "network name %q is already used", req.Name)
	}
	ipRange, ok := parseNetworkRange(&f, "ip_range", req.IPRange)
	n := &schema.Network{Name: req.Name, IPRange: req.IPRange, Labels: derefLabels(req.Labels),
		ExposeRoutesToVSwitch: req.ExposeRoutesToVSwitch, Subnets: []schema.NetworkSubnet{}, Routes: []schema.NetworkRoute{}}
	validateLabels(&f, "labels", n.Labels)
	if ok {
		n.IPRange = ipRange.String()
		for i, sn := range req.Subnets {
			sub, serr := checkSubnet(c.w, n, ipRange, schema.NetworkActionAddSubnetRequest{Type: sn.Type, IPRange: sn.IPRange, NetworkZone: sn.NetworkZone, VSwitchID: sn.VSwitchID})
			if serr != "" {
				f.add(fieldAt("subnets", i, "ip_range"), "%s", serr)
				continue
			}
			n.Subnets = append(n.Subnets, sub)
		}
		for i, rt := range req.Routes {
			route, rerr := checkRoute(n, ipRange, rt.Destination, rt.Gateway)
			if rerr != "" {
				f.add(fieldAt("routes", i, "destination"), "%s", rerr)
				continue
			}
			n.Routes = append(n.Routes, route)
		}
	}
	if len(req.Routes) > maxRoutes {
		return 0, nil, limitExceeded("routes", "a network has at most %d routes", maxRoutes)
	}
	if err := f.err(); err != nil {
		return 0, nil, err
	}
	n.ID = c.w.newID("network")
	n.Created = c.w.now().UTC().Truncate(time.Second)
	c.w.networks.put(n.ID, n)
	return http.StatusCreated, networkGet{c.w.viewNetwork(n)}, nil
}

func fieldAt(list string, i int, field string) string {
	return list + "[" + itoa(i) + "]." + field
}

func updateNetwork(c *call) (int, any, *apiError) {
	n, err := c.network()
	if err != nil {
		return 0, nil, err
	}
	var req schema.NetworkUpdateRequest
	if err := c.decode(&req); err != nil {
		return 0, nil, err
	}
	taken := nameTaken(&c.w.networks, func(o *schema.Network) string { return o.Name })
	if err := renameRelabel("network", nonEmpty(req.Name), req.Labels, checkName, taken, &n.Name, &n.Labels); err != nil {
		return 0, nil, err
	}
	if req.ExposeRoutesToVSwitch != nil {
		n.ExposeRoutesToVSwitch = *req.ExposeRoutesToVSwitch
	}
	return http.StatusOK, networkGet{c.w.viewNetwork(n)}, nil
}

// deleteNetwork deletes a network; attached resources are detached, as the
// API documents.
func deleteNetwork(c *call) (int, any, *apiError) {
	n, err := c.network()
	if err != nil {
		return 0, nil, err
	}
	if n.Protection.Delete {
		return 0, nil, protectedErr("network", n.ID)
	}
	if err := c.w.networkLock(n.ID); err != nil {
		return 0, nil, err
	}
	for _, m := range slices.Clone(c.w.netMembers[n.ID]) {
		c.w.detach(m, n.ID)
	}
	delete(c.w.netMembers, n.ID)
	delete(c.w.netUsed, n.ID)
	delete(c.w.netHint, n.ID)
	c.w.networks.del(n.ID)
	return http.StatusNoContent, nil, nil
}

// networkAction validates the network for an action, applies the change
// and starts the action, which undoes it if it fails.
func networkAction(c *call, command string, check func(n *schema.Network, ipRange netip.Prefix) (func(), *apiError)) (int, any, *apiError) {
	n, err := c.network()
	if err != nil {
		return 0, nil, err
	}
	if err := c.w.networkLock(n.ID); err != nil {
		return 0, nil, err
	}
	ipRange, _ := netip.ParsePrefix(n.IPRange)
	apply, aerr := check(n, ipRange)
	if aerr != nil {
		return 0, nil, aerr
	}
	ref := resourceRef{"network", n.ID}
	undo := c.w.snapshotOf(ref)
	apply()
	a := c.w.startAction(actionSpec{command: command, resources: []resourceRef{ref}, undo: undo})
	return http.StatusCreated, actionGet{c.w.viewAction(a)}, nil
}

func networkAddSubnet(c *call) (int, any, *apiError) {
	var req schema.NetworkActionAddSubnetRequest
	if err := c.decode(&req); err != nil {
		return 0, nil, err
	}
	return networkAction(c, "add_subnet", func(n *schema.Network, ipRange netip.Prefix) (func(), *apiError) {
		if len(n.Subnets) >= maxSubnets {
			return nil, limitExceeded("subnets", "a network has at most %d subnets", maxSubnets)
		}
		sub, msg := checkSubnet(c.w, n, ipRange, req)
		if msg != "" {
			return nil, invalidField("ip_range", "%s", msg)
		}
		return func() { n.Subnets = append(n.Subnets, sub) }, nil
	})
}

func networkDeleteSubnet(c *call) (int, any, *apiError) {
	var req schema.NetworkActionDeleteSubnetRequest
	if err := c.decode(&req); err != nil {
		return 0, nil, err
	}
	return networkAction(c, "delete_subnet", func(n *schema.Network, _ netip.Prefix) (func(), *apiError) {
		p, msg := parseIPv4Net(req.IPRange)
		if msg != "" {
			return nil, invalidField("ip_range", "%s", msg)
		}
		i := slices.IndexFunc(n.Subnets, func(s schema.NetworkSubnet) bool { return s.IPRange == p.String() })
		if i < 0 {
			return nil, invalidField("ip_range", "network %d has no subnet %q", n.ID, req.IPRange)
		}
		for _, m := range c.w.netMembers[n.ID] {
			if p.Contains(m.ip) {
				return nil, invalidField("ip_range", "subnet %s has attached resources; detach them first", req.IPRange)
			}
		}
		return func() {
			n.Subnets = slices.DeleteFunc(n.Subnets, func(s schema.NetworkSubnet) bool { return s.IPRange == p.String() })
		}, nil
	})
}

func networkAddRoute(c *call) (int, any, *apiError) {
	var req schema.NetworkActionAddRouteRequest
	if err := c.decode(&req); err != nil {
		return 0, nil, err
	}
	return networkAction(c, "add_route", func(n *schema.Network, ipRange netip.Prefix) (func(), *apiError) {
		if len(n.Routes) >= maxRoutes {
			return nil, limitExceeded("routes", "a network has at most %d routes", maxRoutes)
		}
		route, msg := checkRoute(n, ipRange, req.Destination, req.Gateway)
		if msg != "" {
			return nil, invalidField("destination", "%s", msg)
		}
		return func() { n.Routes = append(n.Routes, route) }, nil
	})
}

func networkDeleteRoute(c *call) (int, any, *apiError) {
	var req schema.NetworkActionDeleteRouteRequest
	if err := c.decode(&req); err != nil {
		return 0, nil, err
	}
	return networkAction(c, "delete_route", func(n *schema.Network, _ netip.Prefix) (func(), *apiError) {
		d, msg := parseIPv4Net(req.Destination)
		if msg != "" {
			return nil, invalidField("destination", "%s", msg)
		}
		g, gerr := netip.ParseAddr(req.Gateway)
		match := func(r schema.NetworkRoute) bool {
			return gerr == nil && r.Destination == d.String() && r.Gateway == g.String()
		}
		if !slices.ContainsFunc(n.Routes, match) {
			return nil, invalidField("destination", "network %d has no route %s via %s", n.ID, req.Destination, req.Gateway)
		}
		return func() { n.Routes = slices.DeleteFunc(n.Routes, match) }, nil
	})
}

func networkChangeIPRange(c *call) (int, any, *apiError) {
	var req schema.NetworkActionChangeIPRangeRequest
	if err := c.decode(&req); err != nil {
		return 0, nil, err
	}
	return networkAction(c, "change_ip_range", func(n *schema.Network, old netip.Prefix) (func(), *apiError) {
		var f fieldErrors
		p, ok := parseNetworkRange(&f, "ip_range", req.IPRange)
		if ok && !within(old, p) {
			f.add("ip_range", "the new range %s must contain the current range %s", p, old)
		}
		if err := f.err(); err != nil {
			return nil, err
		}
		return func() { n.IPRange = p.String() }, nil
	})
}

func networkChangeProtection(c *call) (int, any, *apiError) {
	var req schema.NetworkActionChangeProtectionRequest
	if err := c.decode(&req); err != nil {
		return 0, nil, err
	}
	return networkAction(c, "change_protection", func(n *schema.Network, _ netip.Prefix) (func(), *apiError) {
		return func() {
			if req.Delete != nil {
				n.Protection.Delete = *req.Delete
			}
		}, nil
	})
}

// parseNetworkRange checks a network ip_range: an RFC 1918 prefix of /24 or larger.
func parseNetworkRange(f *fieldErrors, field, s string) (netip.Prefix, bool) {
	p, msg := netaddr.NetworkRange(s)
	if msg != "" {
		f.add(field, "%s", msg)
		return netip.Prefix{}, false
	}
	return p, true
}

// checkSubnet validates a subnet for a network in w's catalogue's zones.
func checkSubnet(w *liveWorld, n *schema.Network, ipRange netip.Prefix, req schema.NetworkActionAddSubnetRequest) (schema.NetworkSubnet, string) {
	return netaddr.CheckSubnet(w.cat.NetworkZone, n, ipRange, req)
}

func itoa(i int) string { return strconv.Itoa(i) }
