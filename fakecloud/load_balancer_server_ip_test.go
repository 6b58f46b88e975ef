package fakecloud

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// TestLoadBalancerServerTargetIP: a server target names the address it
// is reached on (server.ip): the primary IPv4 by default, or an IPv6 host
// address of the server's /64, and the server is a target once on each.
func TestLoadBalancerServerTargetIP(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	both := newServer(t, f, hcloud.ServerCreateOpts{Name: "both"})
	v6only := newServer(t, f, hcloud.ServerCreateOpts{Name: "v6only", PublicNet: &hcloud.ServerCreatePublicNet{EnableIPv4: false, EnableIPv6: true}})
	res, _, err := f.client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{Name: "lb", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"}})
	if err != nil {
		t.Fatal(err)
	}
	host := func(s *hcloud.Server, last byte) string {
		a, _ := netip.AddrFromSlice(s.PublicNet.IPv6.IP)
		b := a.As16()
		b[15] = last
		return netip.AddrFrom16(b).String()
	}
	path := fmt.Sprintf("/v1/load_balancers/%d/actions/", res.LoadBalancer.ID)
	target := func(id int64, ip string, private bool) string {
		srv := map[string]any{"id": id}
		if ip != "" {
			srv["ip"] = ip
		}
		body := map[string]any{"type": "server", "server": srv}
		if private {
			body["use_private_ip"] = true
		}
		return string(mustJSON(t, body))
	}
	for _, c := range []struct {
		name, action, body string
		status             int
		code               string
	}{
		{"the primary IPv4 by default", "add_target", target(both.ID, "", false), 201, ""},
		{"an IPv6 of the /64 beside it", "add_target", target(both.ID, host(both, 1), false), 201, ""},
		{"the same IPv6 again", "add_target", target(both.ID, host(both, 1), false), 422, "target_already_defined"},
		{"the primary IPv4 named", "add_target", target(both.ID, both.PublicNet.IPv4.IP.String(), false), 422, "target_already_defined"},
		{"no IPv4 to default to", "add_target", target(v6only.ID, "", false), 422, "resolve_cloud_public_targets_error"},
		{"an IPv6-only server on its IPv6", "add_target", target(v6only.ID, host(v6only, 5), false), 201, ""},
		{"another server's IPv6", "add_target", target(both.ID, host(v6only, 7), false), 422, "ip_not_assigned_to_server"},
		{"the /64's anycast address", "add_target", target(both.ID, host(both, 0), false), 422, "ip_not_assigned_to_server"},
		{"another IPv4", "add_target", target(both.ID, "198.51.100.7", false), 422, "ip_not_assigned_to_server"},
		{"an address on a private target", "add_target", target(both.ID, host(both, 2), true), 422, "invalid_input"},
		{"a private address", "add_target", target(both.ID, "10.0.0.2", false), 422, "invalid_input"},
		{"not an address", "add_target", target(both.ID, "nope", false), 422, "invalid_input"},
		{"without server.ip, the IPv4 one goes", "remove_target", target(both.ID, "", false), 201, ""},
	} {
		resp, body := f.do(t, "POST", path+c.action, c.body)
		if resp.StatusCode != c.status || (c.code != "" && !containsCode(body, c.code)) {
			t.Errorf("%s: %d %s, want %d %s", c.name, resp.StatusCode, body, c.status, c.code)
		}
	}
	got := serverTargetIPs(t, f, res.LoadBalancer.ID)
	want := map[string]bool{fmt.Sprintf("%d/%s", both.ID, host(both, 1)): true, fmt.Sprintf("%d/%s", v6only.ID, host(v6only, 5)): true}
	if len(got) != len(want) || !want[got[0]] || !want[got[1]] {
		t.Errorf("targets %v, want the two IPv6 ones", got)
	}
	if resp, body := f.do(t, "POST", path+"remove_target", target(both.ID, host(both, 1), false)); resp.StatusCode != 201 {
		t.Errorf("remove_target by its IPv6: %d %s", resp.StatusCode, body)
	}
	if got := serverTargetIPs(t, f, res.LoadBalancer.ID); len(got) != 1 {
		t.Errorf("targets %v after removing the IPv6 one, want %s's", got, v6only.Name)
	}
}

// serverTargetIPs are the server targets of a load balancer as "id/ip".
func serverTargetIPs(t *testing.T, f *fixture, id int64) []string {
	t.Helper()
	_, body := f.do(t, "GET", fmt.Sprintf("/v1/load_balancers/%d", id), "")
	var lb struct {
		LoadBalancer struct {
			Targets []struct {
				Server struct {
					ID int64  `json:"id"`
					IP string `json:"ip"`
				} `json:"server"`
			} `json:"targets"`
		} `json:"load_balancer"`
	}
	if err := json.Unmarshal(body, &lb); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tg := range lb.LoadBalancer.Targets {
		out = append(out, fmt.Sprintf("%d/%s", tg.Server.ID, tg.Server.IP))
	}
	return out
}
