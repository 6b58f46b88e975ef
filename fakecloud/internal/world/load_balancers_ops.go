package world

import (
	"net/netip"
	"slices"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/catalog"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/listing"
)

// loadBalancers is the load balancer kind's handle.
var loadBalancers = kindOf[StoredLoadBalancer]{"load_balancer", func(w *project) *Table[StoredLoadBalancer] { return &w.LoadBalancers }}

// loadBalancerKind declares load balancers to the world's mechanisms.
func loadBalancerKind() kind {
	return loadBalancers.declare(kind{
		idBase: 200000,
		commands: []string{
			"create_load_balancer", "delete_load_balancer", "add_service", "update_service", "delete_service",
			"add_target", "remove_target", "attach_to_network", "detach_from_network", "change_algorithm",
			"change_load_balancer_type", "enable_public_interface", "disable_public_interface", "change_dns_ptr",
			"change_protection",
		},
		// A restored load balancer keeps only the attachments and the
		// certificates that still exist.
		fit: func(w *project, id int64) {
			lb, ok := w.LoadBalancers.Get(id)
			if !ok {
				return
			}
			lb.PrivateNet = slices.DeleteFunc(lb.PrivateNet, func(pn schema.LoadBalancerPrivateNet) bool {
				return !w.fitsNetwork(Ref{Type: "load_balancer", ID: id}, pn.Network, pn.IP)
			})
			for _, svc := range lb.Services {
				if svc.HTTP != nil {
					svc.HTTP.Certificates = slices.DeleteFunc(svc.HTTP.Certificates, func(id int64) bool { _, ok := w.Certificates.Get(id); return !ok })
				}
			}
		},
		onNetwork: func(v *schema.Network, id int64) { v.LoadBalancers = append(v.LoadBalancers, id) },
		leave: func(w *project, id, network int64) {
			if lb, ok := w.LoadBalancers.Get(id); ok {
				lb.PrivateNet = slices.DeleteFunc(lb.PrivateNet, func(p schema.LoadBalancerPrivateNet) bool { return p.Network == network })
			}
		},
		protect: func(w *project, id int64, on bool) {
			if lb, ok := w.LoadBalancers.Get(id); ok {
				lb.Protection.Delete = on
			}
		},
		onServer: func(w *project, s *StoredServer, v *ServerView) { v.LoadBalancers = w.loadBalancersOf(s.ID) },
	})
}

// LoadBalancerCreated is what creating a load balancer answers.
type LoadBalancerCreated struct {
	LoadBalancer LoadBalancerView `json:"load_balancer"`
	Action       schema.Action    `json:"action"`
}

// LoadBalancerCreateRequest is schema.LoadBalancerCreateRequest with services and
// targets in the shapes shared with the actions.
type LoadBalancerCreateRequest struct {
	schema.LoadBalancerCreateRequest
	Services []ServiceSpec `json:"services"`
	Targets  []TargetSpec  `json:"targets"`
}

// LoadBalancer is the load balancer with the ID.
func (t *Tx) LoadBalancer(id int64) (LoadBalancerView, *apierr.Error) {
	lb, err := loadBalancers.find(t.w, id)
	if err != nil {
		return LoadBalancerView{}, err
	}
	return t.w.ViewLB(lb), nil
}

// LoadBalancers lists the load balancers a query selects, one page of
// them, and how many it selects in all.
func (t *Tx) LoadBalancers(q listing.Query) ([]LoadBalancerView, int, *apierr.Error) {
	items := slices.DeleteFunc(t.w.LoadBalancers.All(), func(lb *StoredLoadBalancer) bool { return !q.Keeps(lb.Name, lb.Labels) })
	return listing.Page(items, q, LBSortKeys, t.w.ViewLB)
}

var lbAlgorithms = []string{"round_robin", "least_connections"}

// CreateLoadBalancer creates a load balancer with its services, targets
// and network.
func (t *Tx) CreateLoadBalancer(req LoadBalancerCreateRequest) (LoadBalancerCreated, *apierr.Error) {
	w := t.w
	var f apierr.Fields
	CheckName(&f, "name", req.Name)
	lt, ok := w.Cat.LBType(idOrNameString(req.LoadBalancerType))
	if !ok {
		f.Add("load_balancer_type", "load balancer type %q does not exist", idOrNameString(req.LoadBalancerType))
	}
	var loc schema.Location
	switch {
	case req.Location != nil:
		if loc, ok = w.Cat.Location(*req.Location); !ok {
			f.Add("location", "location %q does not exist", *req.Location)
		}
	case req.NetworkZone != nil:
		i := slices.IndexFunc(w.Cat.Locations(), func(l schema.Location) bool { return l.NetworkZone == *req.NetworkZone })
		if i < 0 {
			f.Add("network_zone", "network zone %q does not exist", *req.NetworkZone)
		} else {
			loc = w.Cat.Locations()[i]
		}
	default:
		f.Add("location", "location or network_zone is required")
	}
	algo := "round_robin"
	if req.Algorithm != nil {
		algo = req.Algorithm.Type
		if !slices.Contains(lbAlgorithms, algo) {
			f.Add("algorithm.type", "%q is not one of round_robin, least_connections", algo)
		}
	}
	labels := DerefLabels(req.Labels)
	ValidateLabels(&f, "labels", labels)
	var n *schema.Network
	if req.Network != nil {
		if n, ok = w.Networks.Get(*req.Network); !ok {
			f.Add("network", "network %d does not exist", *req.Network)
		}
	}
	if err := f.Err(); err != nil {
		return LoadBalancerCreated{}, err
	}
	if err := w.lbTypeOrderable(lt, false); err != nil {
		return LoadBalancerCreated{}, err
	}
	if _, dup := w.LoadBalancers.Find(func(o *StoredLoadBalancer) bool { return o.Name == req.Name }); dup {
		return LoadBalancerCreated{}, apierr.NotUnique("name", "load balancer name %q is already used", req.Name)
	}
	lb := &StoredLoadBalancer{LoadBalancer: schema.LoadBalancer{Name: req.Name, Location: loc, LoadBalancerType: lt,
		Labels: labels, Algorithm: schema.LoadBalancerAlgorithm{Type: algo}, IncludedTraffic: catalog.IncludedTraffic(lt.Name, loc.Name)}}
	lb.PublicNet.Enabled = req.PublicInterface == nil || *req.PublicInterface
	given, refused := w.lbPrimaryIPs(&f, req.PublicNet, lb.PublicNet.Enabled)
	if err := f.Err(); err != nil {
		return LoadBalancerCreated{}, err
	}
	if refused != nil {
		return LoadBalancerCreated{}, refused
	}
	if err := CheckPrimaryIPsLocation(given, loc.Name); err != nil {
		return LoadBalancerCreated{}, err
	}
	var netIP netip.Addr
	if n != nil {
		ip, err := w.AllocIP(n, loc.NetworkZone, "", "")
		if err != nil {
			return LoadBalancerCreated{}, err
		}
		netIP = ip
		lb.PrivateNet = []schema.LoadBalancerPrivateNet{{Network: n.ID, IP: ip.String()}}
	}
	if !lb.PublicNet.Enabled && n == nil {
		return LoadBalancerCreated{}, apierr.Errorf("load_balancer_not_attached_to_network", "a load balancer without public interface must be attached to a network")
	}
	for i, spec := range req.Services {
		svc := w.BuildService(schema.LoadBalancerService{}, spec, &f, fieldAt("services", i, ""))
		if slices.ContainsFunc(lb.Services, func(o schema.LoadBalancerService) bool { return o.ListenPort == svc.ListenPort }) {
			return LoadBalancerCreated{}, apierr.Errorf("source_port_already_used", "listen port %d is used by two services", svc.ListenPort)
		}
		lb.Services = append(lb.Services, svc)
	}
	for i, spec := range req.Targets {
		t, err := w.BuildTarget(lb, spec, &f, fieldAt("targets", i, ""))
		if err != nil {
			return LoadBalancerCreated{}, err
		}
		if slices.ContainsFunc(lb.Targets, func(o Target) bool { return SameTarget(o, t) }) {
			return LoadBalancerCreated{}, apierr.Errorf("target_already_defined", "target %d is defined twice", i)
		}
		lb.Targets = append(lb.Targets, t)
	}
	if err := f.Err(); err != nil {
		return LoadBalancerCreated{}, err
	}
	if !lb.PublicNet.Enabled && PublicTargets(lb) {
		return LoadBalancerCreated{}, apierr.Errorf("targets_without_use_private_ip", "a load balancer without public interface needs targets that use the private IP")
	}
	if err := w.CheckLBLimits(lb, lt); err != nil {
		return LoadBalancerCreated{}, err
	}
	if given[0] == nil {
		ip4, ok := w.LBPublicIPv4()
		if !ok {
			return LoadBalancerCreated{}, apierr.Errorf(apierr.CodeResourceUnavailable, "no public IPv4 address is left")
		}
		lb.PublicNet.IPv4 = schema.LoadBalancerPublicNetIPv4{IP: ip4.String(), DNSPtr: DefaultPTR(ip4)}
	}
	lb.ID = w.NewID("load_balancer")
	lb.Created = w.Now().UTC().Truncate(time.Second)
	if given[1] == nil {
		lb.PublicNet.IPv6 = LBIPv6(0, w.NewIPv6Net())
	}
	w.HoldLBPrimaryIPs(lb, given)
	if n != nil {
		w.Attach(n.ID, Member{Ref: Ref{Type: "load_balancer", ID: lb.ID}, IP: netIP})
	}
	w.LoadBalancers.Put(lb.ID, lb)
	a := w.startAction(ActionSpec{Command: "create_load_balancer", Resources: []Ref{{Type: "load_balancer", ID: lb.ID}}})
	return LoadBalancerCreated{LoadBalancer: w.ViewLB(lb), Action: w.ViewAction(a)}, nil
}

// UpdateLoadBalancer renames and relabels a load balancer.
func (t *Tx) UpdateLoadBalancer(id int64, req schema.LoadBalancerUpdateRequest) (LoadBalancerView, *apierr.Error) {
	lb, err := loadBalancers.find(t.w, id)
	if err != nil {
		return LoadBalancerView{}, err
	}
	taken := NameTaken(&t.w.LoadBalancers, func(o *StoredLoadBalancer) string { return o.Name })
	if err := RenameRelabel("load balancer", req.Name, req.Labels, CheckName, taken, &lb.Name, &lb.Labels); err != nil {
		return LoadBalancerView{}, err
	}
	return t.w.ViewLB(lb), nil
}

// DeleteLoadBalancer deletes a load balancer with a delete_load_balancer
// action, as the live API has since October 2026 (the vendored OpenAPI
// copy says 204, with none), which holds the primary IPs it leaves.
func (t *Tx) DeleteLoadBalancer(id int64) (schema.Action, *apierr.Error) {
	lb, err := loadBalancers.find(t.w, id)
	if err != nil {
		return schema.Action{}, err
	}
	ref, err := t.deletable("load_balancer", lb.ID, lb.Protection.Delete)
	if err != nil {
		return schema.Action{}, err
	}
	t.w.DetachAll(ref)
	if lb.PublicNet.IPv4.ID == 0 {
		t.w.PubIPv4.Release(lb.PublicNet.IPv4.IP) // a primary IP's address stays with it
	}
	t.w.forgetAll(ref)
	t.w.LoadBalancers.Del(lb.ID)
	holds := t.w.lbDeleteHolds(lb.PublicNet.IPv4.ID, lb.PublicNet.IPv6.ID)
	a := t.w.startAction(ActionSpec{Command: "delete_load_balancer", Resources: []Ref{ref}, UndoAlso: holds})
	return t.w.ViewAction(a), nil
}
