package world

import (
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/catalog"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/listing"
)

// ServerView is a server as the API shows it: public_net addresses may be
// null, which schema.ServerPublicNet cannot express.
type ServerView struct {
	schema.Server
	PublicNet  serverPublicNet        `json:"public_net"`
	ServerType catalog.ServerTypeView `json:"server_type"` // without the removed "deprecated"
	Image      *catalog.ImageView     `json:"image"`
}

type serverPublicNet struct {
	IPv4        *schema.ServerPublicNetIPv4 `json:"ipv4"`
	IPv6        *schema.ServerPublicNetIPv6 `json:"ipv6"`
	FloatingIPs []int64                     `json:"floating_ips"`
	Firewalls   []schema.ServerFirewall     `json:"firewalls"`
}

// ViewServer copies a server for the wire, filling derived fields.
func (w *project) ViewServer(s *StoredServer) ServerView {
	v := ServerView{Server: s.Server, ServerType: catalog.ViewServerType(s.ServerType)}
	if s.Image != nil {
		im := catalog.ViewImage(*s.Image)
		v.Image = &im
	}
	v.Labels = CopyLabels(s.Labels)
	v.PrivateNet = make([]schema.ServerPrivateNet, 0, len(s.PrivateNet))
	for _, p := range s.PrivateNet {
		p.AliasIPs = append([]string{}, p.AliasIPs...)
		v.PrivateNet = append(v.PrivateNet, p)
	}
	v.Volumes = []int64{}
	v.LoadBalancers = []int64{}
	v.PublicNet = serverPublicNet{FloatingIPs: []int64{}, Firewalls: []schema.ServerFirewall{}}
	if s.PublicNet.IPv4.IP != "" {
		ip4 := s.PublicNet.IPv4
		v.PublicNet.IPv4 = &ip4
	}
	if s.PublicNet.IPv6.IP != "" {
		ip6 := s.PublicNet.IPv6
		ip6.DNSPtr = append([]schema.ServerPublicNetIPv6DNSPtr{}, ip6.DNSPtr...)
		v.PublicNet.IPv6 = &ip6
	}
	w.viewServerPTRs(&v.PublicNet)
	w.showOnServer(s, &v)
	return v
}

// loadBalancersOf lists the load balancers that have the server as a
// direct target.
func (w *project) loadBalancersOf(serverID int64) []int64 {
	out := []int64{}
	for _, lb := range w.LoadBalancers.All() {
		if slices.ContainsFunc(lb.Targets, func(t Target) bool {
			return t.Type == "server" && t.Server != nil && t.Server.ID == serverID
		}) {
			out = append(out, lb.ID)
		}
	}
	return out
}

// LoadBalancerView is a load balancer as the API shows it.
type LoadBalancerView struct {
	schema.LoadBalancer
	LoadBalancerType catalog.LBTypeView `json:"load_balancer_type"` // without the removed "deprecated"
	PublicNet        lbPublicNetView    `json:"public_net"`
	Services         []lbServiceView    `json:"services"`
	Targets          []Target           `json:"targets"`
}

// lbPublicNetView is a load balancer's public_net as the API answers since
// 2026-10-05: each address with its reverse DNS, the primary IP it comes
// from (null for one of the load balancer's own) and whether it is blocked.
type lbPublicNetView struct {
	Enabled bool      `json:"enabled"`
	IPv4    lbAddress `json:"ipv4"`
	IPv6    lbAddress `json:"ipv6"`
}

type lbAddress struct {
	ID      *int64 `json:"id"`
	IP      string `json:"ip"`
	Blocked bool   `json:"blocked"`
	DNSPtr  string `json:"dns_ptr"`
}

func primaryIPID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

// lbServiceView leaves out http objects that do not apply to the protocol,
// as the API does; schema.LoadBalancerService would send null.
type lbServiceView struct {
	Protocol        string                          `json:"protocol"`
	ListenPort      int                             `json:"listen_port"`
	DestinationPort int                             `json:"destination_port"`
	Proxyprotocol   bool                            `json:"proxyprotocol"`
	HTTP            *schema.LoadBalancerServiceHTTP `json:"http,omitempty"`
	HealthCheck     lbHealthCheckView               `json:"health_check"`
}

type lbHealthCheckView struct {
	Protocol string                                     `json:"protocol"`
	Port     int                                        `json:"port"`
	Interval int                                        `json:"interval"`
	Timeout  int                                        `json:"timeout"`
	Retries  int                                        `json:"retries"`
	HTTP     *schema.LoadBalancerServiceHealthCheckHTTP `json:"http,omitempty"`
}

func (w *project) ViewLB(lb *StoredLoadBalancer) LoadBalancerView {
	v := LoadBalancerView{LoadBalancer: lb.LoadBalancer, LoadBalancerType: catalog.ViewLBType(w.lbTypeNow(lb.LoadBalancerType))}
	pn := lb.PublicNet
	v.PublicNet = lbPublicNetView{Enabled: pn.Enabled,
		IPv4: lbAddress{ID: primaryIPID(pn.IPv4.ID), IP: pn.IPv4.IP, DNSPtr: w.lbPTR(pn.IPv4.ID, pn.IPv4.IP, pn.IPv4.DNSPtr)},
		IPv6: lbAddress{ID: primaryIPID(pn.IPv6.ID), IP: pn.IPv6.IP, DNSPtr: w.lbPTR(pn.IPv6.ID, pn.IPv6.IP, pn.IPv6.DNSPtr)}}
	v.Labels = CopyLabels(lb.Labels)
	v.PrivateNet = append([]schema.LoadBalancerPrivateNet{}, lb.PrivateNet...)
	v.Services = make([]lbServiceView, 0, len(lb.Services))
	for _, s := range lb.Services {
		s = cloneService(s)
		sv := lbServiceView{Protocol: s.Protocol, ListenPort: s.ListenPort, DestinationPort: s.DestinationPort, Proxyprotocol: s.Proxyprotocol, HTTP: s.HTTP}
		if hc := s.HealthCheck; hc != nil {
			sv.HealthCheck = lbHealthCheckView{Protocol: hc.Protocol, Port: hc.Port, Interval: hc.Interval, Timeout: hc.Timeout, Retries: hc.Retries, HTTP: hc.HTTP}
		}
		v.Services = append(v.Services, sv)
	}
	v.Targets = w.viewTargets(lb)
	return v
}

func cloneService(s schema.LoadBalancerService) schema.LoadBalancerService {
	if s.HTTP != nil {
		h := *s.HTTP
		h.Certificates = append([]int64{}, h.Certificates...)
		s.HTTP = &h
	}
	if s.HealthCheck != nil {
		hc := *s.HealthCheck
		if hc.HTTP != nil {
			hh := *hc.HTTP
			hh.StatusCodes = append([]string{}, hh.StatusCodes...)
			hc.HTTP = &hh
		}
		s.HealthCheck = &hc
	}
	return s
}

var LBSortKeys = listing.ByIDNameCreated(
	func(lb *StoredLoadBalancer) int64 { return lb.ID },
	func(lb *StoredLoadBalancer) string { return lb.Name },
	func(lb *StoredLoadBalancer) int64 { return lb.Created.Unix() })

// ViewNetwork is the network as the API shows it, with its members.
func (w *project) ViewNetwork(n *schema.Network) schema.Network {
	v := *n
	v.Labels = CopyLabels(n.Labels)
	v.Subnets = append([]schema.NetworkSubnet{}, n.Subnets...)
	v.Routes = append([]schema.NetworkRoute{}, n.Routes...)
	v.Servers = []int64{}
	v.LoadBalancers = []int64{}
	for _, m := range w.NetMembers[n.ID] {
		if k := w.kind(m.Type); k.onNetwork != nil {
			k.onNetwork(&v, m.ID)
		}
	}
	slices.Sort(v.Servers)
	v.Servers = slices.Compact(v.Servers)
	slices.Sort(v.LoadBalancers)
	v.LoadBalancers = slices.Compact(v.LoadBalancers)
	return v
}

// ViewCert shows a certificate with the load balancers that use it.
func (w *project) ViewCert(cert *schema.Certificate) schema.Certificate {
	v := *cert
	v.Labels = CopyLabels(cert.Labels)
	v.DomainNames = append([]string{}, cert.DomainNames...)
	v.UsedBy = []schema.CertificateUsedByRef{}
	for _, lb := range w.LoadBalancers.All() {
		if slices.ContainsFunc(lb.Services, func(s schema.LoadBalancerService) bool {
			return s.HTTP != nil && slices.Contains(s.HTTP.Certificates, cert.ID)
		}) {
			v.UsedBy = append(v.UsedBy, schema.CertificateUsedByRef{ID: lb.ID, Type: "load_balancer"})
		}
	}
	if cert.Status != nil {
		st := *cert.Status
		v.Status = &st
	}
	return v
}
