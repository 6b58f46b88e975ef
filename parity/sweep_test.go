package parity

import (
	"errors"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// TestSweep plants what an earlier run left, labelled, beside resources
// of someone else, and sweeps by the kit's label: only the kit's go.
func TestSweep(t *testing.T) {
	target := kept(t)
	ctx := t.Context()
	c := target.client(nil)
	kit := map[string]string{KitLabel: "1", RunLabel: "rold"}
	team := map[string]string{"team": "web"}
	_, ipRange, _ := net.ParseCIDR("10.0.0.0/16")
	ids := map[string]int64{}
	for _, labels := range []map[string]string{kit, team} {
		prefix := "left"
		if labels["team"] != "" {
			prefix = "team"
		}
		n, _, err := c.Network.Create(ctx, hcloud.NetworkCreateOpts{Name: prefix + "-net", IPRange: ipRange, Labels: labels})
		if err != nil {
			t.Fatal(err)
		}
		s, _, err := c.Server.Create(ctx, hcloud.ServerCreateOpts{Name: prefix + "-server", ServerType: &hcloud.ServerType{Name: "cx23"},
			Image: &hcloud.Image{Name: Image}, Labels: labels})
		if err != nil {
			t.Fatal(err)
		}
		lb, _, err := c.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{Name: prefix + "-lb",
			LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"}, Labels: labels})
		if err != nil {
			t.Fatal(err)
		}
		ip, _, err := c.PrimaryIP.Create(ctx, hcloud.PrimaryIPCreateOpts{Name: prefix + "-ip", Type: hcloud.PrimaryIPTypeIPv4, Location: "fsn1", Labels: labels})
		if err != nil {
			t.Fatal(err)
		}
		cert, _, err := c.Certificate.CreateCertificate(ctx, hcloud.CertificateCreateOpts{Name: prefix + "-cert",
			Type: hcloud.CertificateTypeManaged, DomainNames: []string{prefix + ".example.com"}, Labels: labels})
		if err != nil {
			t.Fatal(err)
		}
		ids[prefix+"-net"], ids[prefix+"-server"], ids[prefix+"-lb"] = n.ID, s.Server.ID, lb.LoadBalancer.ID
		ids[prefix+"-ip"], ids[prefix+"-cert"] = ip.PrimaryIP.ID, cert.Certificate.ID
	}

	removed, err := Sweep(ctx, target, KitSelector, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range []struct{ kind, name string }{
		{"load balancer", "left-lb"}, {"server", "left-server"}, {"network", "left-net"}, {"primary IP", "left-ip"}, {"certificate", "left-cert"},
	} {
		want = append(want, r.kind+" "+r.name+" ("+strconv.FormatInt(ids[r.name], 10)+")")
	}
	if diff := cmp.Diff(want, removed); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	left := leftovers(t, target) // the kit's labelled, and every primary IP
	slices.Sort(left)
	wantLeft := []string{"primary IP primary_ip-", "primary IP primary_ip-", "primary IP team-ip"} // team-server's own two
	if len(left) != len(wantLeft) {
		t.Fatalf("left %q, want the other team's primary IPs only", left)
	}
	for i := range left {
		if !strings.HasPrefix(left[i], wantLeft[i]) {
			t.Errorf("left %q, want the other team's primary IPs only", left)
		}
	}
	s, _, err1 := c.Server.GetByName(ctx, "team-server")
	n, _, err2 := c.Network.GetByName(ctx, "team-net")
	lb, _, err3 := c.LoadBalancer.GetByName(ctx, "team-lb")
	cert, _, err4 := c.Certificate.GetByName(ctx, "team-cert")
	if s == nil || n == nil || lb == nil || cert == nil || errors.Join(err1, err2, err3, err4) != nil {
		t.Errorf("the other team's server %v, network %v, load balancer %v, certificate %v (%v): want all four kept",
			s != nil, n != nil, lb != nil, cert != nil, errors.Join(err1, err2, err3, err4))
	}
	if again, err := Sweep(ctx, target, KitSelector, nil); err != nil || len(again) != 0 {
		t.Errorf("a second sweep removed %q (%v), want nothing", again, err)
	}
}
