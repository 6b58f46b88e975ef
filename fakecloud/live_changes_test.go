package fakecloud

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// TestUnassignedPrimaryIPs: since 2026-08-01 a primary IP no one holds
// answers assignee_type "unassigned", however it came to be unassigned;
// assignee_type is optional when creating one assigned.
func TestUnassignedPrimaryIPs(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	typeOf := func(id int64) string {
		t.Helper()
		_, body := f.do(t, "GET", "/v1/primary_ips/"+strconv.FormatInt(id, 10), "")
		var got struct {
			PrimaryIP struct {
				AssigneeID   *int64 `json:"assignee_id"`
				AssigneeType string `json:"assignee_type"`
			} `json:"primary_ip"`
		}
		decode(t, body, &got)
		if (got.PrimaryIP.AssigneeID == nil) != (got.PrimaryIP.AssigneeType == "unassigned") {
			t.Errorf("primary IP %d: assignee_id %v with assignee_type %q", id, got.PrimaryIP.AssigneeID, got.PrimaryIP.AssigneeType)
		}
		return got.PrimaryIP.AssigneeType
	}

	loose, _, err := f.client.PrimaryIP.Create(ctx, hcloud.PrimaryIPCreateOpts{Name: "loose", Type: "ipv4", Location: "fsn1", AssigneeType: "server"})
	if err != nil {
		t.Fatal(err)
	}
	if got := typeOf(loose.PrimaryIP.ID); got != "unassigned" {
		t.Errorf("created with a location only: assignee_type %q, want unassigned", got)
	}

	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a", StartAfterCreate: hcloud.Ptr(false),
		PublicNet: &hcloud.ServerCreatePublicNet{EnableIPv4: true}})
	keep := s.PublicNet.IPv4.ID
	if _, _, err := f.client.PrimaryIP.Update(ctx, &hcloud.PrimaryIP{ID: keep}, hcloud.PrimaryIPUpdateOpts{AutoDelete: hcloud.Ptr(false)}); err != nil {
		t.Fatal(err)
	}
	if got := typeOf(keep); got != "server" {
		t.Errorf("a server's own primary IP: assignee_type %q, want server", got)
	}
	act, _, err := f.client.PrimaryIP.Unassign(ctx, keep)
	if err == nil {
		err = f.client.Action.WaitFor(ctx, act)
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := typeOf(keep); got != "unassigned" {
		t.Errorf("unassigned: assignee_type %q, want unassigned", got)
	}

	// Created assigned without assignee_type: server is the only kind.
	resp, body := f.do(t, "POST", "/v1/primary_ips", `{"name":"v6","type":"ipv6","assignee_id":`+strconv.FormatInt(s.ID, 10)+`}`)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("created with assignee_id alone: %d %s", resp.StatusCode, body)
	}
	var created struct {
		PrimaryIP struct{ ID int64 } `json:"primary_ip"`
	}
	decode(t, body, &created)
	if got := typeOf(created.PrimaryIP.ID); got != "server" {
		t.Errorf("created with assignee_id alone: assignee_type %q, want server", got)
	}
	resp, body = f.do(t, "POST", "/v1/primary_ips", `{"name":"odd","type":"ipv4","assignee_type":"floating","assignee_id":`+strconv.FormatInt(s.ID, 10)+`}`)
	if resp.StatusCode != http.StatusUnprocessableEntity || !containsCode(body, "invalid_input") {
		t.Errorf("assignee_type floating: %d %s, want invalid_input", resp.StatusCode, body)
	}

	// A server deleted leaves the primary IPs it does not delete unassigned.
	if _, _, err := f.client.PrimaryIP.Update(ctx, &hcloud.PrimaryIP{ID: created.PrimaryIP.ID}, hcloud.PrimaryIPUpdateOpts{AutoDelete: hcloud.Ptr(false)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.client.Server.DeleteWithResult(ctx, s); err != nil {
		t.Fatal(err)
	}
	if got := typeOf(created.PrimaryIP.ID); got != "unassigned" {
		t.Errorf("its server deleted: assignee_type %q, want unassigned", got)
	}
}

// TestActionsListedWhereTheyStarted: an action is listed under the family
// of the endpoint that started it, and under that family's resources it
// names, not under every resource it names.
func TestActionsListedWhereTheyStarted(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	nw := newNetwork(t, f, "n", "10.0.0.0/16", "10.0.1.0/24")
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a", StartAfterCreate: hcloud.Ptr(false)})
	attach, _, err := f.client.Server.AttachToNetwork(ctx, s, hcloud.ServerAttachToNetworkOpts{Network: nw})
	if err != nil {
		t.Fatal(err)
	}
	unassign, _, err := f.client.PrimaryIP.Unassign(ctx, s.PublicNet.IPv4.ID)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(path string) []int64 {
		t.Helper()
		resp, body := f.do(t, "GET", path, "")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
		}
		var got struct{ Actions []hcloud.Action }
		decode(t, body, &got)
		var out []int64
		for _, a := range got.Actions {
			out = append(out, a.ID)
		}
		return out
	}
	id := func(v int64) string { return strconv.FormatInt(v, 10) }
	cases := []struct {
		path   string
		action int64
		listed bool
	}{
		{"/v1/servers/actions", attach.ID, true},
		{"/v1/servers/" + id(s.ID) + "/actions", attach.ID, true},
		{"/v1/networks/actions", attach.ID, false},
		{"/v1/networks/" + id(nw.ID) + "/actions", attach.ID, false},
		{"/v1/primary_ips/actions", unassign.ID, true},
		{"/v1/primary_ips/" + id(s.PublicNet.IPv4.ID) + "/actions", unassign.ID, true},
		{"/v1/servers/actions", unassign.ID, false},
		{"/v1/servers/" + id(s.ID) + "/actions", unassign.ID, false},
	}
	for _, c := range cases {
		if got := slices.Contains(ids(c.path), c.action); got != c.listed {
			t.Errorf("GET %s lists action %d: %v, want %v", c.path, c.action, got, c.listed)
		}
	}
	for path, want := range map[string]int{
		"/v1/actions/" + id(attach.ID):           http.StatusOK,
		"/v1/servers/actions/" + id(attach.ID):   http.StatusOK,
		"/v1/networks/actions/" + id(attach.ID):  http.StatusNotFound,
		"/v1/servers/actions/" + id(unassign.ID): http.StatusNotFound,
	} {
		if resp, body := f.do(t, "GET", path, ""); resp.StatusCode != want {
			t.Errorf("GET %s: %d %s, want %d", path, resp.StatusCode, body, want)
		}
	}
}

func decode(t testing.TB, body []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("decode %.200s: %v", body, err)
	}
}

// TestServerCreatedInNetworksAttachesByActions: a server created in
// networks answers an attach_to_network per network in next_actions,
// after start_server, each naming the server and its network.
func TestServerCreatedInNetworksAttachesByActions(t *testing.T) {
	f := newFixture(t, Options{ActionDuration: time.Second})
	ctx := t.Context()
	a := newNetwork(t, f, "a", "10.0.0.0/16", "10.0.1.0/24")
	b := newNetwork(t, f, "b", "10.1.0.0/16", "10.1.1.0/24")
	res, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "s", ServerType: &hcloud.ServerType{Name: testServerType},
		Image: &hcloud.Image{Name: "ubuntu-24.04"}, Networks: []*hcloud.Network{a, b}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, act := range res.NextActions {
		act.Progress = 0 // how far a running action is depends on timing
		got = append(got, describeAction(act))
	}
	srv := res.Server.ID
	want := []string{
		"start_server running 0% server:" + strconv.FormatInt(srv, 10),
		"attach_to_network running 0% server:" + strconv.FormatInt(srv, 10) + " network:" + strconv.FormatInt(a.ID, 10),
		"attach_to_network running 0% server:" + strconv.FormatInt(srv, 10) + " network:" + strconv.FormatInt(b.ID, 10),
	}
	if !slices.Equal(got, want) {
		t.Errorf("next_actions %q, want %q", got, want)
	}
	if len(res.Server.PrivateNet) != 0 {
		t.Errorf("the answer's private_net %v, want it empty until the attachments end", res.Server.PrivateNet)
	}
	if err := f.client.Action.WaitFor(ctx, append([]*hcloud.Action{res.Action}, res.NextActions...)...); err != nil {
		t.Fatal(err)
	}
	s, _, err := f.client.Server.GetByID(ctx, srv)
	if err != nil || len(s.PrivateNet) != 2 || s.Status != hcloud.ServerStatusRunning {
		t.Errorf("after the actions: %d networks, status %s, %v; want 2, running", len(s.PrivateNet), s.Status, err)
	}
}

// TestNetworkMembers: GET /networks/{id}/members (changelog 2026-09-15)
// lists the servers and load balancers attached, with their subnet and
// status, filtered, sorted and paged, through hcloud-go too.
func TestNetworkMembers(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	nw := newNetwork(t, f, "n", "10.0.0.0/16", "10.0.1.0/24")
	act, _, err := f.client.Network.AddSubnet(ctx, nw, hcloud.NetworkAddSubnetOpts{Subnet: hcloud.NetworkSubnet{Type: hcloud.NetworkSubnetTypeCloud, NetworkZone: hcloud.NetworkZoneEUCentral, IPRange: mustCIDR(t, "10.0.2.0/24")}})
	if err == nil {
		err = f.client.Action.WaitFor(ctx, act)
	}
	if err != nil {
		t.Fatal(err)
	}
	a := newServer(t, f, hcloud.ServerCreateOpts{Name: "a", Networks: []*hcloud.Network{nw}})
	b := newServer(t, f, hcloud.ServerCreateOpts{Name: "b"})
	act, _, err = f.client.Server.AttachToNetwork(ctx, b, hcloud.ServerAttachToNetworkOpts{Network: nw, IP: net2ip("10.0.2.9"), AliasIPs: []net.IP{net2ip("10.0.2.10")}})
	if err == nil {
		err = f.client.Action.WaitFor(ctx, act)
	}
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := f.client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{Name: "lb", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"}, Network: nw})
	if err != nil {
		t.Fatal(err)
	}
	lb := res.LoadBalancer

	all, err := f.client.Network.AllMembers(ctx, nw)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range all {
		got = append(got, fmt.Sprintf("%s:%d %s %v %s %s", m.Type, m.ID, m.IP, m.AliasIPs, m.Subnet.String(), m.Status))
	}
	want := []string{
		fmt.Sprintf("server:%d 10.0.1.1 [] 10.0.1.0/24 ok", a.ID),
		fmt.Sprintf("server:%d 10.0.2.9 [10.0.2.10] 10.0.2.0/24 ok", b.ID),
		fmt.Sprintf("load_balancer:%d 10.0.1.2 [] 10.0.1.0/24 ok", lb.ID),
	}
	if !slices.Equal(got, want) {
		t.Errorf("members:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for query, wantIDs := range map[string][]int64{
		"?type=server":                         {a.ID, b.ID},
		"?type=load_balancer":                  {lb.ID},
		"?subnet=10.0.2.0/24":                  {b.ID},
		"?status=attaching":                    nil,
		"?sort=ip:desc":                        {b.ID, lb.ID, a.ID},
		"?type=server&sort=id:desc&per_page=1": {b.ID},
	} {
		resp, body := f.do(t, "GET", fmt.Sprintf("/v1/networks/%d/members%s", nw.ID, query), "")
		var page struct{ Members []struct{ ID int64 } }
		decode(t, body, &page)
		var ids []int64
		for _, m := range page.Members {
			ids = append(ids, m.ID)
		}
		if resp.StatusCode != http.StatusOK || !slices.Equal(ids, wantIDs) {
			t.Errorf("%s: %d %v, want %v", query, resp.StatusCode, ids, wantIDs)
		}
	}
	for _, query := range []string{"?type=floating_ip", "?subnet=10.0.2.1/24", "?status=fine", "?sort=name"} {
		if resp, body := f.do(t, "GET", fmt.Sprintf("/v1/networks/%d/members%s", nw.ID, query), ""); resp.StatusCode != http.StatusUnprocessableEntity || !containsCode(body, "invalid_input") {
			t.Errorf("%s: %d %s, want invalid_input", query, resp.StatusCode, body)
		}
	}
	if resp, _ := f.do(t, "GET", "/v1/networks/999999/members", ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("members of a missing network: %d, want 404", resp.StatusCode)
	}
}

// TestNetworkMemberAttaching: a member whose attach_to_network still runs
// is listed as attaching.
func TestNetworkMemberAttaching(t *testing.T) {
	f := newFixture(t, Options{ActionDuration: time.Hour})
	nw := newNetwork(t, f, "n", "10.0.0.0/16", "10.0.1.0/24")
	res, _, err := f.client.Server.Create(t.Context(), hcloud.ServerCreateOpts{Name: "s", ServerType: &hcloud.ServerType{Name: testServerType},
		Image: &hcloud.Image{Name: "ubuntu-24.04"}, Networks: []*hcloud.Network{nw}, StartAfterCreate: hcloud.Ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	members, _, err := f.client.Network.ListMembers(t.Context(), nw, hcloud.NetworkMemberListOpts{})
	if err != nil || len(members) != 1 || members[0].ID != res.Server.ID || members[0].Status != "attaching" {
		t.Errorf("members while attaching: %+v %v, want the server attaching", members, err)
	}
	// A snapshot taken meanwhile keeps the address taken.
	st, err := f.fc.Export()
	if err == nil {
		err = f.fc.Import(st)
	}
	if err != nil {
		t.Fatal(err)
	}
	members, _, err = f.client.Network.ListMembers(t.Context(), nw, hcloud.NetworkMemberListOpts{})
	if err != nil || len(members) != 1 || members[0].IP.String() != "10.0.1.1" {
		t.Errorf("members after a snapshot round trip: %+v %v, want the server's 10.0.1.1", members, err)
	}
	srv, _, _ := f.client.Server.GetByID(t.Context(), res.Server.ID)
	if len(srv.PrivateNet) != 0 {
		t.Errorf("private_net %v while the attachment runs, want none", srv.PrivateNet)
	}
}

func mustCIDR(t testing.TB, s string) *net.IPNet {
	t.Helper()
	_, n, err := net.ParseCIDR(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestLoadBalancerOnPrimaryIPs: since 2026-10-05 a load balancer can be
// created on primary IPs the user made; it keeps them for its lifetime,
// and its answer names them.
func TestLoadBalancerOnPrimaryIPs(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	pip := func(name, family string) *hcloud.PrimaryIP {
		t.Helper()
		res, _, err := f.client.PrimaryIP.Create(ctx, hcloud.PrimaryIPCreateOpts{Name: name, Type: hcloud.PrimaryIPType(family), Location: "fsn1"})
		if err != nil {
			t.Fatal(err)
		}
		return res.PrimaryIP
	}
	v4, v6 := pip("v4", "ipv4"), pip("v6", "ipv6")
	create := func(name, location string, extra string) (*http.Response, []byte) {
		return f.do(t, "POST", "/v1/load_balancers", `{"name":"`+name+`","load_balancer_type":"lb11","location":"`+location+`"`+extra+`}`)
	}
	on := fmt.Sprintf(`,"public_net":{"ipv4":%d,"ipv6":%d}`, v4.ID, v6.ID)
	for _, tt := range []struct {
		name, location, extra, code string
	}{
		{"elsewhere", "nbg1", on, "primary_ip_datacenter_mismatch"},
		{"private", "fsn1", on + `,"public_interface":false`, "invalid_input"},
		{"swapped", "fsn1", fmt.Sprintf(`,"public_net":{"ipv4":%d}`, v6.ID), "primary_ip_version_mismatch"},
		{"missing", "fsn1", `,"public_net":{"ipv4":999999}`, "invalid_input"},
	} {
		if resp, body := create(tt.name, tt.location, tt.extra); !containsCode(body, tt.code) {
			t.Errorf("%s: %d %s, want %s", tt.name, resp.StatusCode, body, tt.code)
		}
	}
	resp, body := create("lb", "fsn1", on)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create on primary IPs: %d %s", resp.StatusCode, body)
	}
	var got struct {
		LoadBalancer struct {
			ID        int64
			PublicNet struct {
				IPv4, IPv6 struct {
					ID      *int64
					IP      string
					Blocked *bool
				}
			} `json:"public_net"`
		} `json:"load_balancer"`
	}
	decode(t, body, &got)
	lb := got.LoadBalancer
	if pn := lb.PublicNet; pn.IPv4.ID == nil || *pn.IPv4.ID != v4.ID || pn.IPv4.IP != v4.IP.String() || pn.IPv4.Blocked == nil ||
		pn.IPv6.ID == nil || *pn.IPv6.ID != v6.ID || !v6.Network.Contains(net.ParseIP(pn.IPv6.IP)) {
		t.Errorf("public_net %s, want the primary IPs %d (%s) and %d (%s)", body, v4.ID, v4.IP, v6.ID, v6.Network)
	}
	held, _, _ := f.client.PrimaryIP.GetByID(ctx, v4.ID)
	if held.AssigneeID != lb.ID || held.AssigneeType != "load_balancer" {
		t.Errorf("the primary IP is assigned to %s %d, want load_balancer %d", held.AssigneeType, held.AssigneeID, lb.ID)
	}
	if resp, body := create("again", "fsn1", on); !containsCode(body, "primary_ip_assigned") {
		t.Errorf("a primary IP taken twice: %d %s", resp.StatusCode, body)
	}
	_, _, err := f.client.PrimaryIP.Unassign(ctx, v4.ID)
	wantCode(t, err, "unsupported_error")
	_, err = f.client.PrimaryIP.Delete(ctx, held)
	wantCode(t, err, "must_be_unassigned")

	// A load balancer's own addresses have no primary IP.
	own, _, err := f.client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{Name: "own", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, body := f.do(t, "GET", fmt.Sprintf("/v1/load_balancers/%d", own.LoadBalancer.ID), ""); !strings.Contains(string(body), `"ipv4":{"id":null,"ip":"`) || !strings.Contains(string(body), `"blocked":false`) {
		t.Errorf("a load balancer's own address: %s, want id null and blocked false", body)
	}

	// Deleted, the load balancer leaves its primary IPs unassigned, with
	// their addresses.
	if _, _, err := f.client.LoadBalancer.DeleteWithResult(ctx, &hcloud.LoadBalancer{ID: lb.ID}); err != nil {
		t.Fatal(err)
	}
	after, _, _ := f.client.PrimaryIP.GetByID(ctx, v4.ID)
	if after == nil || after.AssigneeID != 0 || after.AssigneeType != "unassigned" || !after.IP.Equal(v4.IP) {
		t.Errorf("after the load balancer went: %+v, want %s unassigned", after, v4.IP)
	}
}

// TestNoDeprecatedField: since 2026-11-02 images, server types and load
// balancer types answer "deprecation" alone, wherever they appear.
func TestNoDeprecatedField(t *testing.T) {
	f := newFixture(t, Options{})
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "s"})
	lb, _, err := f.client.LoadBalancer.Create(t.Context(), hcloud.LoadBalancerCreateOpts{Name: "lb", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/v1/server_types", "/v1/server_types/104", "/v1/images", "/v1/load_balancer_types",
		fmt.Sprintf("/v1/servers/%d", s.ID), fmt.Sprintf("/v1/load_balancers/%d", lb.LoadBalancer.ID)} {
		resp, body := f.do(t, "GET", path, "")
		if resp.StatusCode != http.StatusOK || strings.Contains(string(body), `"deprecated"`) || !strings.Contains(string(body), `"deprecation"`) {
			t.Errorf("GET %s: %d, deprecated %v, deprecation %v; want deprecation alone", path, resp.StatusCode,
				strings.Contains(string(body), `"deprecated"`), strings.Contains(string(body), `"deprecation"`))
		}
	}
}
