package fakecloud

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// The metadata service a server reaches at 169.254.169.254 answers for
// that server only. fakecloud serves each server's at
// /metadata/{id or name}/hetzner/v1/metadata, so a program under test
// points its metadata endpoint there. Like the real one it needs no token,
// answers in plain text (YAML for the whole document and private-networks),
// and is not counted as an API request.
func (s *Server) metadataRoutes() http.Handler {
	r := chi.NewRouter()
	byRef := func(r *http.Request) world.ServerRef { return world.ServerRef{NameOrID: chi.URLParam(r, "server")} }
	r.Get("/{server}/hetzner/v1/metadata", s.metadata(byRef, metadataAll))
	r.Get("/{server}/hetzner/v1/metadata/{key}", s.metadata(byRef, metadataKey))
	return r
}

// sourceMetadataRoutes serve /hetzner/v1/metadata as the real service does:
// to the server whose private or public IPv4 address the request comes
// from. A test environment that sends 169.254.169.254 to fakecloud (a DNAT
// rule on each node) then needs no setting in the program under test.
func (s *Server) sourceMetadataRoutes(r chi.Router) {
	bySource := func(r *http.Request) world.ServerRef {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			return world.ServerRef{}
		}
		return world.ServerRef{Address: host}
	}
	r.Get("/hetzner/v1/metadata", s.metadata(bySource, metadataAll))
	r.Get("/hetzner/v1/metadata/{key}", s.metadata(bySource, metadataKey))
}

// networks are the YAML list items of private-networks.
func networks(m world.Metadata) []string {
	var out []string
	for _, n := range m.Networks {
		out = append(out, fmt.Sprintf("- ip: %s\n  alias_ips: [%s]\n  interface_num: %d\n  mac_address: %s\n  network_id: %d\n  network_name: %s\n  network: %s\n  subnet: %s\n  gateway: %s\n",
			n.IP, strings.Join(n.AliasIPs, ", "), n.Interface, n.MAC, n.ID, n.Name, n.IPRange, n.Subnet, n.Gateway))
	}
	return out
}

func metadataKey(m world.Metadata, r *http.Request) (string, bool) {
	switch chi.URLParam(r, "key") {
	case "hostname":
		return m.Hostname, true
	case "instance-id":
		return strconv.FormatInt(m.ID, 10), true
	case "public-ipv4":
		return m.IPv4, true
	case "region":
		return m.Region, true
	case "availability-zone":
		return m.Zone, true
	case "private-networks":
		return strings.Join(networks(m), ""), true
	}
	return "", false
}

func metadataAll(m world.Metadata, _ *http.Request) (string, bool) {
	var b strings.Builder
	fmt.Fprintf(&b, "availability-zone: %s\nhostname: %s\ninstance-id: %d\nlocal-ipv4: ''\npublic-ipv4: %s\nregion: %s\n",
		m.Zone, m.Hostname, m.ID, m.IPv4, m.Region)
	if len(m.Networks) == 0 {
		b.WriteString("private-networks: []\n")
	} else {
		b.WriteString("private-networks:\n")
		for _, n := range networks(m) {
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

func (s *Server) metadata(which func(*http.Request) world.ServerRef, answer func(world.Metadata, *http.Request) (string, bool)) http.HandlerFunc {
	return func(rw http.ResponseWriter, r *http.Request) {
		var doc world.Metadata
		var ok bool
		s.world.Read(func(tx *world.Tx) { doc, ok = tx.ServerMetadata(which(r)) })
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
