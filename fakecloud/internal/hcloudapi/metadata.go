package hcloudapi

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

// The metadata service a server reaches at 169.254.169.254 answers for
// that server only. fakecloud serves each server's at
// /metadata/{id or name}/hetzner/v1/metadata, so a program under test
// points its metadata endpoint there. Like the real one it needs no token,
// answers in plain text (YAML for the whole document and private-networks),
// and is not counted as an API request.
func (s *Server) metadataRoutes() http.Handler {
	r := chi.NewRouter()
	byRef := func(r *http.Request) func(*server) bool {
		ref := chi.URLParam(r, "server")
		return func(v *server) bool { return v.Name == ref || strconv.FormatInt(v.ID, 10) == ref }
	}
	r.Get("/{server}/hetzner/v1/metadata", s.metadata(byRef, metadataAll))
	r.Get("/{server}/hetzner/v1/metadata/{key}", s.metadata(byRef, metadataKey))
	return r
}

// sourceMetadataRoutes serve /hetzner/v1/metadata as the real service does:
// to the server whose private or public IPv4 address the request comes
// from. A test environment that sends 169.254.169.254 to fakecloud (a DNAT
// rule on each node) then needs no setting in the program under test.
func (s *Server) sourceMetadataRoutes(r chi.Router) {
	bySource := func(r *http.Request) func(*server) bool {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			return func(*server) bool { return false }
		}
		return func(v *server) bool {
			return v.PublicNet.IPv4.IP == host || slices.ContainsFunc(v.PrivateNet, func(pn schema.ServerPrivateNet) bool { return pn.IP == host })
		}
	}
	r.Get("/hetzner/v1/metadata", s.metadata(bySource, metadataAll))
	r.Get("/hetzner/v1/metadata/{key}", s.metadata(bySource, metadataKey))
}

func metadataKey(m metadataDoc, r *http.Request) (string, bool) { return m.key(chi.URLParam(r, "key")) }

// metadataDoc is what the service knows of one server.
type metadataDoc struct {
	hostname, region, zone, ipv4 string
	id                           int64
	networks                     []string // YAML list items of private-networks
}

func (m metadataDoc) key(k string) (string, bool) {
	switch k {
	case "hostname":
		return m.hostname, true
	case "instance-id":
		return strconv.FormatInt(m.id, 10), true
	case "public-ipv4":
		return m.ipv4, true
	case "region":
		return m.region, true
	case "availability-zone":
		return m.zone, true
	case "private-networks":
		return strings.Join(m.networks, ""), true
	}
	return "", false
}

func metadataAll(m metadataDoc, _ *http.Request) (string, bool) {
	var b strings.Builder
	fmt.Fprintf(&b, "availability-zone: %s\nhostname: %s\ninstance-id: %d\nlocal-ipv4: ''\npublic-ipv4: %s\nregion: %s\n",
		m.zone, m.hostname, m.id, m.ipv4, m.region)
	if len(m.networks) == 0 {
		b.WriteString("private-networks: []\n")
	} else {
		b.WriteString("private-networks:\n")
		for _, n := range m.networks {
			b.WriteString(indent(n))
		}
	}
	return b.String(), true
}

func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "")
}

func (s *Server) metadata(which func(*http.Request) func(*server) bool, answer func(metadataDoc, *http.Request) (string, bool)) http.HandlerFunc {
	return func(rw http.ResponseWriter, r *http.Request) {
		doc, ok := s.metadataOf(which(r))
		var text string
		if ok {
			text, ok = answer(doc, r)
		}
		if !ok {
			http.Error(rw, "not found", http.StatusNotFound)
			return
		}
		rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = rw.Write([]byte(text))
	}
}

// metadataOf describes the server match finds.
func (s *Server) metadataOf(match func(*server) bool) (metadataDoc, bool) {
	w := s.world
	w.mu.Lock()
	defer w.mu.Unlock()
	w.settle()
	srv, ok := w.servers.find(match)
	if !ok {
		return metadataDoc{}, false
	}
	m := metadataDoc{hostname: srv.Name, id: srv.ID, region: srv.Location.Name, zone: srv.Location.Name, ipv4: srv.PublicNet.IPv4.IP}
	for _, dc := range w.cat.Datacenters() {
		if dc.Location.Name == srv.Location.Name {
			m.zone = dc.Name
		}
	}
	for i, pn := range srv.PrivateNet {
		n, ok := w.networks.get(pn.Network)
		if !ok {
			continue
		}
		subnet, gateway := subnetOf(n, pn.IP)
		m.networks = append(m.networks, fmt.Sprintf("- ip: %s\n  alias_ips: [%s]\n  interface_num: %d\n  mac_address: %s\n  network_id: %d\n  network_name: %s\n  network: %s\n  subnet: %s\n  gateway: %s\n",
			pn.IP, strings.Join(pn.AliasIPs, ", "), i+1, pn.MACAddress, n.ID, n.Name, n.IPRange, subnet, gateway))
	}
	return m, true
}

// subnetOf finds the subnet of a network that holds ip, and its gateway.
func subnetOf(n *schema.Network, ip string) (subnet, gateway string) {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return "", ""
	}
	for _, sn := range n.Subnets {
		if p, err := netip.ParsePrefix(sn.IPRange); err == nil && p.Contains(addr) {
			return sn.IPRange, sn.Gateway
		}
	}
	return "", ""
}
