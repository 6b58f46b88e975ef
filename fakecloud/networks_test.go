package fakecloud

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

func cidr(s string) *net.IPNet {
	_, n, err := net.ParseCIDR(s)
	if err != nil {
		panic(err)
	}
	return n
}

func TestNetworkCreateValidation(t *testing.T) {
	f := newFixture(t, Options{})
	newNetwork(t, f, "taken", "10.0.0.0/16", "")
	tests := []struct {
		name, body, code string
	}{
		{"public range", `{"name":"a","ip_range":"8.8.0.0/16"}`, "invalid_input"},
		{"too small", `{"name":"a","ip_range":"10.0.0.0/25"}`, "invalid_input"},
		{"not a cidr", `{"name":"a","ip_range":"10.0.0.0"}`, "invalid_input"},
		{"missing range", `{"name":"a"}`, "invalid_input"},
		{"subnet outside", `{"name":"a","ip_range":"10.0.0.0/16","subnets":[{"type":"cloud","ip_range":"10.1.0.0/24","network_zone":"eu-central"}]}`, "invalid_input"},
		{"overlapping subnets", `{"name":"a","ip_range":"10.0.0.0/16","subnets":[{"type":"cloud","ip_range":"10.0.0.0/24","network_zone":"eu-central"},{"type":"cloud","ip_range":"10.0.0.128/25","network_zone":"eu-central"}]}`, "invalid_input"},
		{"unknown zone", `{"name":"a","ip_range":"10.0.0.0/16","subnets":[{"type":"cloud","ip_range":"10.0.0.0/24","network_zone":"moon"}]}`, "invalid_input"},
		{"vswitch without id", `{"name":"a","ip_range":"10.0.0.0/16","subnets":[{"type":"vswitch","ip_range":"10.0.0.0/24","network_zone":"eu-central"}]}`, "invalid_input"},
		{"route gateway first address", `{"name":"a","ip_range":"10.0.0.0/16","routes":[{"destination":"10.100.0.0/24","gateway":"10.0.0.1"}]}`, "invalid_input"},
		{"route gateway outside", `{"name":"a","ip_range":"10.0.0.0/16","routes":[{"destination":"10.100.0.0/24","gateway":"10.1.0.5"}]}`, "invalid_input"},
		{"route gateway 172.31.1.1", `{"name":"a","ip_range":"172.16.0.0/12","routes":[{"destination":"10.100.0.0/24","gateway":"172.31.1.1"}]}`, "invalid_input"},
		{"route destination public", `{"name":"a","ip_range":"10.0.0.0/16","routes":[{"destination":"8.8.8.0/24","gateway":"10.0.0.5"}]}`, "invalid_input"},
		{"route overlaps subnet", `{"name":"a","ip_range":"10.0.0.0/16","subnets":[{"type":"cloud","ip_range":"10.0.1.0/24","network_zone":"eu-central"}],"routes":[{"destination":"10.0.1.0/25","gateway":"10.0.0.5"}]}`, "invalid_input"},
		{"routes overlap", `{"name":"a","ip_range":"10.0.0.0/16","routes":[{"destination":"10.100.0.0/16","gateway":"10.0.0.5"},{"destination":"10.100.1.0/24","gateway":"10.0.0.6"}]}`, "invalid_input"},
		{"duplicate name", `{"name":"taken","ip_range":"10.0.0.0/16"}`, "uniqueness_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, body := f.do(t, "POST", "/v1/networks", tt.body)
			if !containsCode(body, tt.code) {
				t.Fatalf("got %s, want %s", body, tt.code)
			}
		})
	}
	nets, _ := f.client.Network.All(t.Context())
	if len(nets) != 1 {
		t.Errorf("%d networks after rejected creates, want 1", len(nets))
	}
}

func TestNetworkLifecycle(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	res, _, err := f.client.Network.Create(ctx, hcloud.NetworkCreateOpts{
		Name: "k8s", IPRange: cidr("10.0.0.0/8"), Labels: map[string]string{"env": "test"},
		Subnets: []hcloud.NetworkSubnet{{Type: hcloud.NetworkSubnetTypeCloud, IPRange: cidr("10.0.0.0/24"), NetworkZone: hcloud.NetworkZoneEUCentral}},
		Routes:  []hcloud.NetworkRoute{{Destination: cidr("10.244.0.0/24"), Gateway: net2ip("10.0.0.2")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Subnets[0].Gateway.String() != "10.0.0.1" {
		t.Errorf("subnet gateway %s, want 10.0.0.1", res.Subnets[0].Gateway)
	}
	wait := func(a *hcloud.Action, _ *hcloud.Response, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if err := f.client.Action.WaitFor(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	wait(f.client.Network.AddSubnet(ctx, res, hcloud.NetworkAddSubnetOpts{Subnet: hcloud.NetworkSubnet{Type: hcloud.NetworkSubnetTypeCloud, IPRange: cidr("10.0.1.0/24"), NetworkZone: hcloud.NetworkZoneUSEast}}))
	wait(f.client.Network.AddSubnet(ctx, res, hcloud.NetworkAddSubnetOpts{Subnet: hcloud.NetworkSubnet{Type: hcloud.NetworkSubnetTypeServer, NetworkZone: hcloud.NetworkZoneEUCentral}}))
	wait(f.client.Network.AddRoute(ctx, res, hcloud.NetworkAddRouteOpts{Route: hcloud.NetworkRoute{Destination: cidr("10.244.1.0/24"), Gateway: net2ip("10.0.0.3")}}))
	wait(f.client.Network.DeleteRoute(ctx, res, hcloud.NetworkDeleteRouteOpts{Route: hcloud.NetworkRoute{Destination: cidr("10.244.0.0/24"), Gateway: net2ip("10.0.0.2")}}))
	wait(f.client.Network.DeleteSubnet(ctx, res, hcloud.NetworkDeleteSubnetOpts{Subnet: hcloud.NetworkSubnet{IPRange: cidr("10.0.1.0/24")}}))
	wait(f.client.Network.ChangeProtection(ctx, res, hcloud.NetworkChangeProtectionOpts{Delete: hcloud.Ptr(true)}))
	n, _, err := f.client.Network.GetByID(ctx, res.ID)
	if err != nil {
		t.Fatal(err)
	}
	var subnets, routes []string
	for _, s := range n.Subnets {
		subnets = append(subnets, fmt.Sprintf("%s %s %s", s.Type, s.IPRange, s.NetworkZone))
	}
	for _, r := range n.Routes {
		routes = append(routes, r.Destination.String()+" via "+r.Gateway.String())
	}
	if diff := cmp.Diff([]string{"cloud 10.0.0.0/24 eu-central", "server 10.0.2.0/24 eu-central"}, subnets); diff != "" {
		t.Errorf("subnets (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"10.244.1.0/24 via 10.0.0.3"}, routes); diff != "" {
		t.Errorf("routes (-want +got):\n%s", diff)
	}
	_, err = f.client.Network.Delete(ctx, n)
	wantCode(t, err, hcloud.ErrorCodeProtected)

	_, _, err = f.client.Network.ChangeIPRange(ctx, n, hcloud.NetworkChangeIPRangeOpts{IPRange: cidr("10.0.0.0/16")})
	wantCode(t, err, hcloud.ErrorCodeInvalidInput)
	_, _, err = f.client.Network.DeleteRoute(ctx, n, hcloud.NetworkDeleteRouteOpts{Route: hcloud.NetworkRoute{Destination: cidr("10.99.0.0/24"), Gateway: net2ip("10.0.0.3")}})
	wantCode(t, err, hcloud.ErrorCodeInvalidInput)
	_, _, err = f.client.Network.AddRoute(ctx, n, hcloud.NetworkAddRouteOpts{Route: hcloud.NetworkRoute{Destination: cidr("10.244.1.0/24"), Gateway: net2ip("10.0.0.9")}})
	wantCode(t, err, hcloud.ErrorCodeInvalidInput)

	up, _, err := f.client.Network.Update(ctx, n, hcloud.NetworkUpdateOpts{Name: "renamed", Labels: map[string]string{}})
	if err != nil || up.Name != "renamed" || len(up.Labels) != 0 {
		t.Fatalf("update: %+v %v", up, err)
	}
	wait(f.client.Network.ChangeProtection(ctx, n, hcloud.NetworkChangeProtectionOpts{Delete: hcloud.Ptr(false)}))
	if _, err := f.client.Network.Delete(ctx, n); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := f.client.Network.GetByID(ctx, n.ID); got != nil {
		t.Error("network still there after delete")
	}
}

func TestNetworkChangeIPRangeGrows(t *testing.T) {
	f := newFixture(t, Options{})
	n := newNetwork(t, f, "n", "10.0.0.0/16", "10.0.0.0/24")
	a, _, err := f.client.Network.ChangeIPRange(t.Context(), n, hcloud.NetworkChangeIPRangeOpts{IPRange: cidr("10.0.0.0/12")})
	if err != nil || f.client.Action.WaitFor(t.Context(), a) != nil {
		t.Fatal(err)
	}
	got, _, _ := f.client.Network.GetByID(t.Context(), n.ID)
	if got.IPRange.String() != "10.0.0.0/12" {
		t.Errorf("ip_range %s", got.IPRange)
	}
}

func TestNetworkRouteLimit(t *testing.T) {
	f := newFixture(t, Options{})
	n := newNetwork(t, f, "n", "10.0.0.0/16", "10.0.0.0/24")
	for i := range maxRoutes {
		_, _, err := f.client.Network.AddRoute(t.Context(), n, hcloud.NetworkAddRouteOpts{Route: hcloud.NetworkRoute{
			Destination: cidr(fmt.Sprintf("10.%d.%d.0/24", 100+i/256, i%256)), Gateway: net2ip("10.0.0.2")}})
		if err != nil {
			t.Fatalf("route %d: %v", i, err)
		}
	}
	_, _, err := f.client.Network.AddRoute(t.Context(), n, hcloud.NetworkAddRouteOpts{Route: hcloud.NetworkRoute{Destination: cidr("10.200.0.0/24"), Gateway: net2ip("10.0.0.2")}})
	wantCode(t, err, hcloud.ErrorCodeResourceLimitExceeded)
}

// TestNetworkConflictWhileChanging: the API answers conflict, which
// hcloud-go retries, while an action runs on a network.
func TestNetworkConflictWhileChanging(t *testing.T) {
	f := newFixture(t, Options{ActionPolls: 1})
	n := newNetwork(t, f, "n", "10.0.0.0/16", "10.0.0.0/24")
	if _, _, err := f.client.Network.AddRoute(t.Context(), n, hcloud.NetworkAddRouteOpts{Route: hcloud.NetworkRoute{Destination: cidr("10.244.0.0/24"), Gateway: net2ip("10.0.0.2")}}); err != nil {
		t.Fatal(err)
	}
	resp, body := f.do(t, "POST", fmt.Sprintf("/v1/networks/%d/actions/add_route", n.ID), `{"destination":"10.244.1.0/24","gateway":"10.0.0.2"}`)
	if resp.StatusCode != 409 || !containsCode(body, "conflict") {
		t.Fatalf("got %d %s, want 409 conflict", resp.StatusCode, body)
	}
}

func TestNetworkIPAllocation(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	n := newNetwork(t, f, "n", "10.0.0.0/16", "10.0.0.0/30")
	s1 := newServer(t, f, hcloud.ServerCreateOpts{Name: "a", Networks: []*hcloud.Network{n}})
	if got := s1.PrivateNet[0].IP.String(); got != "10.0.0.2" {
		t.Fatalf("first server got %s, want 10.0.0.2 (network, gateway and broadcast are reserved)", got)
	}
	_, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "b", ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{Name: "ubuntu-24.04"}, Networks: []*hcloud.Network{n}})
	wantCode(t, err, hcloud.ErrorCodeNoSubnetAvailable)
	if all, _ := f.client.Server.All(ctx); len(all) != 1 {
		t.Errorf("%d servers after a refused create, want 1", len(all))
	}
	// A server in another network zone cannot join an eu-central subnet.
	us := newServer(t, f, hcloud.ServerCreateOpts{Name: "us", ServerType: &hcloud.ServerType{Name: "cpx11"}, Location: &hcloud.Location{Name: "ash"}})
	_, _, err = f.client.Server.AttachToNetwork(ctx, us, hcloud.ServerAttachToNetworkOpts{Network: n})
	wantCode(t, err, hcloud.ErrorCodeNoSubnetAvailable)
	// Deleting the network detaches its servers.
	if _, err := f.client.Network.Delete(ctx, n); err != nil {
		t.Fatal(err)
	}
	got, _, _ := f.client.Server.GetByID(ctx, s1.ID)
	if len(got.PrivateNet) != 0 {
		t.Errorf("server still attached after its network was deleted: %+v", got.PrivateNet)
	}
}

// TestSubnetFirstAddress: a cloud subnet's gateway is the network's first
// address, so the subnet's own first address goes to the first member
// (the Terraform provider's acceptance tests expect 10.0.1.1 live); a
// server subnet's gateway is its own first address, never handed out.
func TestSubnetFirstAddress(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	n := newNetwork(t, f, "n", "10.0.0.0/16", "10.0.1.0/24")
	_, srvNet, _ := net.ParseCIDR("10.0.2.0/24")
	act, _, err := f.client.Network.AddSubnet(ctx, n, hcloud.NetworkAddSubnetOpts{Subnet: hcloud.NetworkSubnet{Type: hcloud.NetworkSubnetTypeServer, IPRange: srvNet, NetworkZone: hcloud.NetworkZoneEUCentral}})
	f.waitAction(t, act, err)
	n, _, _ = f.client.Network.GetByID(ctx, n.ID)
	var gateways []string
	for _, sn := range n.Subnets {
		gateways = append(gateways, sn.IPRange.String()+" via "+sn.Gateway.String())
	}
	if want := []string{"10.0.1.0/24 via 10.0.0.1", "10.0.2.0/24 via 10.0.2.1"}; !slices.Equal(gateways, want) {
		t.Errorf("subnets %v, want %v", gateways, want)
	}
	a := newServer(t, f, hcloud.ServerCreateOpts{Name: "a", Networks: []*hcloud.Network{n}})
	b := newServer(t, f, hcloud.ServerCreateOpts{Name: "b"})
	act, _, err = f.client.Server.AttachToNetwork(ctx, b, hcloud.ServerAttachToNetworkOpts{Network: n, IPRange: srvNet})
	f.waitAction(t, act, err)
	b, _, _ = f.client.Server.GetByID(ctx, b.ID)
	if got := []string{a.PrivateNet[0].IP.String(), b.PrivateNet[0].IP.String()}; !slices.Equal(got, []string{"10.0.1.1", "10.0.2.2"}) {
		t.Errorf("addresses %v, want 10.0.1.1 in the cloud subnet and 10.0.2.2 in the server subnet", got)
	}
	// The gateway itself is refused when asked for.
	c := newServer(t, f, hcloud.ServerCreateOpts{Name: "c"})
	_, _, err = f.client.Server.AttachToNetwork(ctx, c, hcloud.ServerAttachToNetworkOpts{Network: n, IP: net.ParseIP("10.0.2.1")})
	wantCode(t, err, "ip_not_available")
}

// TestDeleteSubnetWithMembers: a subnet that holds a server is kept, with
// the answer the Terraform provider retries on; once the server is
// detached it goes.
func TestDeleteSubnetWithMembers(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	n := newNetwork(t, f, "n", "10.0.0.0/16", "10.0.1.0/24")
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a", Networks: []*hcloud.Network{n}})
	_, _, err := f.client.Network.DeleteSubnet(ctx, n, hcloud.NetworkDeleteSubnetOpts{Subnet: n.Subnets[0]})
	wantCode(t, err, hcloud.ErrorCodeServiceError)
	if err == nil || !strings.Contains(err.Error(), "network has attached resources") {
		t.Errorf("got %v, want the message the provider looks for", err)
	}
	if got, _, _ := f.client.Network.GetByID(ctx, n.ID); len(got.Subnets) != 1 {
		t.Fatalf("subnets after a refused delete: %+v", got.Subnets)
	}
	act, _, err := f.client.Server.DetachFromNetwork(ctx, s, hcloud.ServerDetachFromNetworkOpts{Network: n})
	if err == nil {
		err = f.client.Action.WaitFor(ctx, act)
	}
	if err == nil {
		act, _, err = f.client.Network.DeleteSubnet(ctx, n, hcloud.NetworkDeleteSubnetOpts{Subnet: n.Subnets[0]})
	}
	if err == nil {
		err = f.client.Action.WaitFor(ctx, act)
	}
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := f.client.Network.GetByID(ctx, n.ID); len(got.Subnets) != 0 {
		t.Errorf("subnets after the delete: %+v", got.Subnets)
	}
}

func TestNetworkListFilters(t *testing.T) {
	f := newFixture(t, Options{})
	for i := range 3 {
		_, _, err := f.client.Network.Create(t.Context(), hcloud.NetworkCreateOpts{Name: fmt.Sprintf("n%d", i), IPRange: cidr("10.0.0.0/16"), Labels: map[string]string{"i": fmt.Sprint(i)}})
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := f.client.Network.AllWithOpts(t.Context(), hcloud.NetworkListOpts{ListOpts: hcloud.ListOpts{LabelSelector: "i!=1"}, Sort: []string{"name:desc"}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range got {
		names = append(names, n.Name)
	}
	if diff := cmp.Diff([]string{"n2", "n0"}, names); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	byName, _, err := f.client.Network.GetByName(t.Context(), "n1")
	if err != nil || byName == nil {
		t.Fatalf("get by name: %v %v", byName, err)
	}
}

// maxRoutes is how many routes a network may have, as the API documents.
const maxRoutes = 100
