package fakecloud

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// lbWorld is a network with n servers in it, labelled role=worker.
func lbWorld(t *testing.T, f *fixture, n int) (*hcloud.Network, []*hcloud.Server) {
	t.Helper()
	nw := newNetwork(t, f, "k8s", "10.0.0.0/16", "10.0.0.0/24")
	var servers []*hcloud.Server
	for i := range n {
		servers = append(servers, newServer(t, f, hcloud.ServerCreateOpts{Name: fmt.Sprintf("node-%d", i),
			Networks: []*hcloud.Network{nw}, Labels: map[string]string{"role": "worker"}}))
	}
	return nw, servers
}

func TestLoadBalancerCreateInline(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	nw, servers := lbWorld(t, f, 3)
	res, _, err := f.client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{
		Name: "svc", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, NetworkZone: hcloud.NetworkZoneEUCentral,
		Algorithm: &hcloud.LoadBalancerAlgorithm{Type: hcloud.LoadBalancerAlgorithmTypeLeastConnections},
		Network:   nw, Labels: map[string]string{"hcloud-ccm/service-uid": "abc"},
		Services: []hcloud.LoadBalancerCreateOptsService{
			{Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: hcloud.Ptr(80), DestinationPort: hcloud.Ptr(30080), Proxyprotocol: hcloud.Ptr(true)},
			{Protocol: hcloud.LoadBalancerServiceProtocolHTTP, ListenPort: hcloud.Ptr(8080), DestinationPort: hcloud.Ptr(30081),
				HTTP:        &hcloud.LoadBalancerCreateOptsServiceHTTP{StickySessions: hcloud.Ptr(true), CookieName: hcloud.Ptr("S")},
				HealthCheck: &hcloud.LoadBalancerCreateOptsServiceHealthCheck{Protocol: hcloud.LoadBalancerServiceProtocolHTTP, HTTP: &hcloud.LoadBalancerCreateOptsServiceHealthCheckHTTP{Path: hcloud.Ptr("/healthz"), StatusCodes: []string{"200"}}}},
		},
		Targets: []hcloud.LoadBalancerCreateOptsTarget{
			{Type: hcloud.LoadBalancerTargetTypeServer, Server: hcloud.LoadBalancerCreateOptsTargetServer{Server: servers[0]}, UsePrivateIP: hcloud.Ptr(true)},
			{Type: hcloud.LoadBalancerTargetTypeServer, Server: hcloud.LoadBalancerCreateOptsTargetServer{Server: servers[1]}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Action.Command != "create_load_balancer" {
		t.Errorf("action %s", res.Action.Command)
	}
	if err := f.client.Action.WaitFor(ctx, res.Action); err != nil {
		t.Fatal(err)
	}
	lb, _, err := f.client.LoadBalancer.GetByID(ctx, res.LoadBalancer.ID)
	if err != nil {
		t.Fatal(err)
	}
	if lb.Location.Name != "fsn1" || lb.Algorithm.Type != hcloud.LoadBalancerAlgorithmTypeLeastConnections || !lb.PublicNet.Enabled {
		t.Errorf("location %s algorithm %s public %v", lb.Location.Name, lb.Algorithm.Type, lb.PublicNet.Enabled)
	}
	if lb.PublicNet.IPv4.IP == nil || lb.PublicNet.IPv6.IP == nil {
		t.Errorf("public IPs %+v", lb.PublicNet)
	}
	if len(lb.PrivateNet) != 1 || lb.PrivateNet[0].Network.ID != nw.ID {
		t.Fatalf("private net %+v", lb.PrivateNet)
	}
	if len(lb.Services) != 2 {
		t.Fatalf("services %+v", lb.Services)
	}
	tcp, http := lb.Services[0], lb.Services[1]
	if tcp.DestinationPort != 30080 || !tcp.Proxyprotocol || tcp.HealthCheck.Protocol != "tcp" || tcp.HealthCheck.Port != 30080 || tcp.HealthCheck.Interval.Seconds() != 15 {
		t.Errorf("tcp service %+v health %+v", tcp, tcp.HealthCheck)
	}
	if !http.HTTP.StickySessions || http.HTTP.CookieName != "S" || http.HealthCheck.HTTP.Path != "/healthz" || !slices.Equal(http.HealthCheck.HTTP.StatusCodes, []string{"200"}) {
		t.Errorf("http service %+v health %+v", http.HTTP, http.HealthCheck.HTTP)
	}
	if len(lb.Targets) != 2 || !lb.Targets[0].UsePrivateIP || lb.Targets[1].UsePrivateIP {
		t.Fatalf("targets %+v", lb.Targets)
	}
	for _, tg := range lb.Targets {
		if len(tg.HealthStatus) != 2 || tg.HealthStatus[0].Status != hcloud.LoadBalancerTargetHealthStatusStatusHealthy {
			t.Errorf("health %+v", tg.HealthStatus)
		}
	}
	srv, _, _ := f.client.Server.GetByID(ctx, servers[0].ID)
	if len(srv.LoadBalancers) != 1 || srv.LoadBalancers[0].ID != lb.ID {
		t.Errorf("server.load_balancers %+v", srv.LoadBalancers)
	}
	nwGot, _, _ := f.client.Network.GetByID(ctx, nw.ID)
	if len(nwGot.LoadBalancers) != 1 {
		t.Errorf("network.load_balancers %+v", nwGot.LoadBalancers)
	}
}

func TestLoadBalancerActions(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	nw, servers := lbWorld(t, f, 2)
	res, _, err := f.client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{Name: "lb", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"}})
	if err != nil {
		t.Fatal(err)
	}
	lb := res.LoadBalancer
	// public_net as the API answers since 2026-10-05: no primary IP behind
	// the load balancer's own address, not blocked.
	_, body := f.do(t, "GET", fmt.Sprintf("/v1/load_balancers/%d", lb.ID), "")
	want := fmt.Sprintf(`"public_net":{"enabled":true,"ipv4":{"id":null,"ip":"%s","blocked":false,"dns_ptr":`, lb.PublicNet.IPv4.IP)
	if !strings.Contains(string(body), want) {
		t.Errorf("load balancer body lacks %s: %s", want, body)
	}
	do := func(name string, a *hcloud.Action, _ *hcloud.Response, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := f.client.Action.WaitFor(ctx, a); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	a, r, err := f.client.LoadBalancer.AttachToNetwork(ctx, lb, hcloud.LoadBalancerAttachToNetworkOpts{Network: nw, IP: net2ip("10.0.0.100")})
	do("attach_to_network", a, r, err)
	a, r, err = f.client.LoadBalancer.AddService(ctx, lb, hcloud.LoadBalancerAddServiceOpts{Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: hcloud.Ptr(443), DestinationPort: hcloud.Ptr(30443)})
	do("add_service", a, r, err)
	a, r, err = f.client.LoadBalancer.UpdateService(ctx, lb, 443, hcloud.LoadBalancerUpdateServiceOpts{DestinationPort: hcloud.Ptr(31443), HealthCheck: &hcloud.LoadBalancerUpdateServiceOptsHealthCheck{Retries: hcloud.Ptr(5)}})
	do("update_service", a, r, err)
	a, r, err = f.client.LoadBalancer.AddService(ctx, lb, hcloud.LoadBalancerAddServiceOpts{Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: hcloud.Ptr(22)})
	do("add_service 22", a, r, err)
	a, r, err = f.client.LoadBalancer.DeleteService(ctx, lb, 22)
	do("delete_service", a, r, err)
	a, r, err = f.client.LoadBalancer.AddServerTarget(ctx, lb, hcloud.LoadBalancerAddServerTargetOpts{Server: servers[0], UsePrivateIP: hcloud.Ptr(true)})
	do("add_target server", a, r, err)
	a, r, err = f.client.LoadBalancer.AddLabelSelectorTarget(ctx, lb, hcloud.LoadBalancerAddLabelSelectorTargetOpts{Selector: "role=worker", UsePrivateIP: hcloud.Ptr(true)})
	do("add_target label_selector", a, r, err)
	a, r, err = f.client.LoadBalancer.AddIPTarget(ctx, lb, hcloud.LoadBalancerAddIPTargetOpts{IP: net2ip("203.0.113.10")})
	do("add_target ip", a, r, err)
	a, r, err = f.client.LoadBalancer.ChangeAlgorithm(ctx, lb, hcloud.LoadBalancerChangeAlgorithmOpts{Type: hcloud.LoadBalancerAlgorithmTypeLeastConnections})
	do("change_algorithm", a, r, err)
	a, r, err = f.client.LoadBalancer.ChangeType(ctx, lb, hcloud.LoadBalancerChangeTypeOpts{LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb21"}})
	do("change_type", a, r, err)
	a, r, err = f.client.LoadBalancer.DisablePublicInterface(ctx, lb)
	do("disable_public_interface", a, r, err)
	got, _, _ := f.client.LoadBalancer.GetByID(ctx, lb.ID)
	if got.PublicNet.Enabled {
		t.Error("public interface still enabled")
	}
	a, r, err = f.client.LoadBalancer.EnablePublicInterface(ctx, lb)
	do("enable_public_interface", a, r, err)
	a, r, err = f.client.LoadBalancer.ChangeDNSPtr(ctx, lb, got.PublicNet.IPv4.IP.String(), hcloud.Ptr("lb.example.com"))
	do("change_dns_ptr", a, r, err)
	a, r, err = f.client.LoadBalancer.ChangeProtection(ctx, lb, hcloud.LoadBalancerChangeProtectionOpts{Delete: hcloud.Ptr(true)})
	do("change_protection", a, r, err)

	got, _, _ = f.client.LoadBalancer.GetByID(ctx, lb.ID)
	if got.PrivateNet[0].IP.String() != "10.0.0.100" || got.Services[0].DestinationPort != 31443 || got.Services[0].HealthCheck.Retries != 5 || len(got.Services) != 1 {
		t.Errorf("state %+v services %+v", got.PrivateNet, got.Services)
	}
	if got.LoadBalancerType.Name != "lb21" || got.Algorithm.Type != "least_connections" || got.PublicNet.IPv4.DNSPtr != "lb.example.com" || !got.Protection.Delete {
		t.Errorf("type %s algorithm %s ptr %s protected %v", got.LoadBalancerType.Name, got.Algorithm.Type, got.PublicNet.IPv4.DNSPtr, got.Protection.Delete)
	}
	var sel *hcloud.LoadBalancerTarget
	for i := range got.Targets {
		if got.Targets[i].Type == hcloud.LoadBalancerTargetTypeLabelSelector {
			sel = &got.Targets[i]
		}
	}
	if sel == nil || len(sel.Targets) != 2 {
		t.Fatalf("label selector target %+v", sel)
	}
	// Label selectors resolve live: a new matching server joins.
	newServer(t, f, hcloud.ServerCreateOpts{Name: "late", Networks: []*hcloud.Network{nw}, Labels: map[string]string{"role": "worker"}})
	got, _, _ = f.client.LoadBalancer.GetByID(ctx, lb.ID)
	for _, tg := range got.Targets {
		if tg.Type == hcloud.LoadBalancerTargetTypeLabelSelector && len(tg.Targets) != 3 {
			t.Errorf("label selector resolved to %d servers after a join, want 3", len(tg.Targets))
		}
	}
	_, _, err = f.client.LoadBalancer.AddServerTarget(ctx, lb, hcloud.LoadBalancerAddServerTargetOpts{Server: servers[0], UsePrivateIP: hcloud.Ptr(true)})
	wantCode(t, err, hcloud.ErrorCodeTargetAlreadyDefined)
	_, _, err = f.client.LoadBalancer.AddService(ctx, lb, hcloud.LoadBalancerAddServiceOpts{Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: hcloud.Ptr(443)})
	wantCode(t, err, hcloud.ErrorCodeSourcePortAlreadyUsed)
	_, _, err = f.client.LoadBalancer.DetachFromNetwork(ctx, lb, hcloud.LoadBalancerDetachFromNetworkOpts{Network: nw})
	wantCode(t, err, hcloud.ErrorCodeTargetsWithoutUsePrivateIP)
	_, _, err = f.client.LoadBalancer.DeleteWithResult(ctx, lb)
	wantCode(t, err, hcloud.ErrorCodeProtected)

	a, r, err = f.client.LoadBalancer.RemoveServerTarget(ctx, lb, servers[0])
	do("remove_target server", a, r, err)
	a, r, err = f.client.LoadBalancer.RemoveLabelSelectorTarget(ctx, lb, "role=worker")
	do("remove_target label_selector", a, r, err)
	a, r, err = f.client.LoadBalancer.RemoveIPTarget(ctx, lb, net2ip("203.0.113.10"))
	do("remove_target ip", a, r, err)
	a, r, err = f.client.LoadBalancer.DetachFromNetwork(ctx, lb, hcloud.LoadBalancerDetachFromNetworkOpts{Network: nw})
	do("detach_from_network", a, r, err)
	a, r, err = f.client.LoadBalancer.ChangeProtection(ctx, lb, hcloud.LoadBalancerChangeProtectionOpts{Delete: hcloud.Ptr(false)})
	do("change_protection off", a, r, err)
	got, _, _ = f.client.LoadBalancer.GetByID(ctx, lb.ID)
	if len(got.Targets) != 0 || len(got.PrivateNet) != 0 {
		t.Errorf("targets %+v private %+v", got.Targets, got.PrivateNet)
	}
	del, _, err := f.client.LoadBalancer.DeleteWithResult(ctx, lb)
	if err != nil || del.Action == nil || del.Action.Command != "delete_load_balancer" {
		t.Fatalf("delete: %+v %v", del, err)
	}
	if got, _, _ := f.client.LoadBalancer.GetByID(ctx, lb.ID); got != nil {
		t.Error("load balancer still there after delete")
	}
}

func TestLoadBalancerLimits(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	_, servers := lbWorld(t, f, 26)
	var targets []hcloud.LoadBalancerCreateOptsTarget
	for _, s := range servers {
		targets = append(targets, hcloud.LoadBalancerCreateOptsTarget{Type: hcloud.LoadBalancerTargetTypeServer, Server: hcloud.LoadBalancerCreateOptsTargetServer{Server: s}})
	}
	_, _, err := f.client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{Name: "big", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"}, Targets: targets})
	wantCode(t, err, hcloud.ErrorCodeResourceLimitExceeded)
	// A label selector counts the servers it matches.
	_, _, err = f.client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{Name: "sel", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"},
		Targets: []hcloud.LoadBalancerCreateOptsTarget{{Type: hcloud.LoadBalancerTargetTypeLabelSelector, LabelSelector: hcloud.LoadBalancerCreateOptsTargetLabelSelector{Selector: "role=worker"}}}})
	wantCode(t, err, hcloud.ErrorCodeResourceLimitExceeded)
	res, _, err := f.client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{Name: "ok", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"}, Targets: targets[:25]})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = f.client.LoadBalancer.AddServerTarget(ctx, res.LoadBalancer, hcloud.LoadBalancerAddServerTargetOpts{Server: servers[25]})
	wantCode(t, err, hcloud.ErrorCodeResourceLimitExceeded)
	for port := range 5 {
		_, _, err = f.client.LoadBalancer.AddService(ctx, res.LoadBalancer, hcloud.LoadBalancerAddServiceOpts{Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: hcloud.Ptr(1000 + port)})
		if err != nil {
			t.Fatal(err)
		}
	}
	_, _, err = f.client.LoadBalancer.AddService(ctx, res.LoadBalancer, hcloud.LoadBalancerAddServiceOpts{Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: hcloud.Ptr(2000)})
	wantCode(t, err, hcloud.ErrorCodeResourceLimitExceeded)
	// a downgrade that does not fit is refused.
	a, _, err := f.client.LoadBalancer.ChangeType(ctx, res.LoadBalancer, hcloud.LoadBalancerChangeTypeOpts{LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb21"}})
	if err != nil || f.client.Action.WaitFor(ctx, a) != nil {
		t.Fatal(err)
	}
	if _, _, err := f.client.LoadBalancer.AddServerTarget(ctx, res.LoadBalancer, hcloud.LoadBalancerAddServerTargetOpts{Server: servers[25]}); err != nil {
		t.Fatal(err)
	}
	_, _, err = f.client.LoadBalancer.ChangeType(ctx, res.LoadBalancer, hcloud.LoadBalancerChangeTypeOpts{LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}})
	wantCode(t, err, hcloud.ErrorCodeInvalidLoadBalancerType)
	lbs, _ := f.client.LoadBalancer.All(ctx)
	if len(lbs) != 1 {
		t.Errorf("%d load balancers, want only the one that fitted", len(lbs))
	}
}

// TestLoadBalancerTargetOfDeletedServer: a deleted server stays a target,
// reported unhealthy, and can still be removed (hcloud-ccm issue 505).
func TestLoadBalancerTargetOfDeletedServer(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	_, servers := lbWorld(t, f, 2)
	res, _, err := f.client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{Name: "lb", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"},
		Services: []hcloud.LoadBalancerCreateOptsService{{Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: hcloud.Ptr(80)}},
		Targets: []hcloud.LoadBalancerCreateOptsTarget{
			{Type: hcloud.LoadBalancerTargetTypeServer, Server: hcloud.LoadBalancerCreateOptsTargetServer{Server: servers[0]}},
			{Type: hcloud.LoadBalancerTargetTypeServer, Server: hcloud.LoadBalancerCreateOptsTargetServer{Server: servers[1]}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.client.Server.DeleteWithResult(ctx, servers[0]); err != nil {
		t.Fatal(err)
	}
	lb, _, _ := f.client.LoadBalancer.GetByID(ctx, res.LoadBalancer.ID)
	var health []string
	for _, tg := range lb.Targets {
		health = append(health, string(tg.HealthStatus[0].Status))
	}
	if diff := cmp.Diff([]string{"unhealthy", "healthy"}, health); diff != "" {
		t.Errorf("health (-want +got):\n%s", diff)
	}
	_, _, err = f.client.LoadBalancer.AddServerTarget(ctx, lb, hcloud.LoadBalancerAddServerTargetOpts{Server: servers[0]})
	wantCode(t, err, hcloud.ErrorCodeInvalidInput)
	a, _, err := f.client.LoadBalancer.RemoveServerTarget(ctx, lb, servers[0])
	if err != nil || f.client.Action.WaitFor(ctx, a) != nil {
		t.Fatalf("remove target of a deleted server: %v", err)
	}
}

func TestLoadBalancerValidation(t *testing.T) {
	f := newFixture(t, Options{})
	newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	tests := []struct{ name, body, code string }{
		{"no location", `{"name":"x","load_balancer_type":"lb11"}`, "invalid_input"},
		{"unknown type", `{"name":"x","load_balancer_type":"lb99","location":"fsn1"}`, "invalid_input"},
		{"bad algorithm", `{"name":"x","load_balancer_type":"lb11","location":"fsn1","algorithm":{"type":"random"}}`, "invalid_input"},
		{"bad protocol", `{"name":"x","load_balancer_type":"lb11","location":"fsn1","services":[{"protocol":"udp","listen_port":53}]}`, "invalid_input"},
		{"https without certificate", `{"name":"x","load_balancer_type":"lb11","location":"fsn1","services":[{"protocol":"https"}]}`, "invalid_input"},
		{"tcp without port", `{"name":"x","load_balancer_type":"lb11","location":"fsn1","services":[{"protocol":"tcp"}]}`, "invalid_input"},
		{"port out of range", `{"name":"x","load_balancer_type":"lb11","location":"fsn1","services":[{"protocol":"tcp","listen_port":70000}]}`, "invalid_input"},
		{"bad health interval", `{"name":"x","load_balancer_type":"lb11","location":"fsn1","services":[{"protocol":"tcp","listen_port":80,"health_check":{"protocol":"tcp","interval":1}}]}`, "invalid_input"},
		{"zero health retries", `{"name":"x","load_balancer_type":"lb11","location":"fsn1","services":[{"protocol":"tcp","listen_port":80,"health_check":{"protocol":"tcp","retries":0}}]}`, "invalid_input"},
		{"duplicate ports", `{"name":"x","load_balancer_type":"lb11","location":"fsn1","services":[{"protocol":"tcp","listen_port":80},{"protocol":"http","listen_port":80}]}`, "source_port_already_used"},
		{"unknown server", `{"name":"x","load_balancer_type":"lb11","location":"fsn1","targets":[{"type":"server","server":{"id":1}}]}`, "invalid_input"},
		{"private without network", `{"name":"x","load_balancer_type":"lb11","location":"fsn1","targets":[{"type":"label_selector","label_selector":{"selector":"a=b"},"use_private_ip":true}]}`, "load_balancer_not_attached_to_network"},
		{"bad selector", `{"name":"x","load_balancer_type":"lb11","location":"fsn1","targets":[{"type":"label_selector","label_selector":{"selector":"a in (b"}}]}`, "invalid_input"},
		{"cloud IP as ip target", `{"name":"x","load_balancer_type":"lb11","location":"fsn1","targets":[{"type":"ip","ip":{"ip":"198.18.0.1"}}]}`, "cloud_resource_ip_not_allowed"},
		{"no public interface without network", `{"name":"x","load_balancer_type":"lb11","location":"fsn1","public_interface":false}`, "load_balancer_not_attached_to_network"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, body := f.do(t, "POST", "/v1/load_balancers", tt.body)
			if !containsCode(body, tt.code) {
				t.Fatalf("got %s, want %s", body, tt.code)
			}
		})
	}
	if lbs, _ := f.client.LoadBalancer.All(t.Context()); len(lbs) != 0 {
		t.Errorf("%d load balancers after rejected creates", len(lbs))
	}
}

func TestLoadBalancerListAndUpdate(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	for i := range 3 {
		_, _, err := f.client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{Name: fmt.Sprintf("lb%d", i), LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"},
			Location: &hcloud.Location{Name: "hel1"}, Labels: map[string]string{"hcloud-ccm/service-uid": fmt.Sprint(i)}})
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := f.client.LoadBalancer.AllWithOpts(ctx, hcloud.LoadBalancerListOpts{ListOpts: hcloud.ListOpts{LabelSelector: "hcloud-ccm/service-uid=1"}})
	if err != nil || len(got) != 1 || got[0].Name != "lb1" {
		t.Fatalf("label selector: %v %v", got, err)
	}
	up, _, err := f.client.LoadBalancer.Update(ctx, got[0], hcloud.LoadBalancerUpdateOpts{Name: "renamed", Labels: map[string]string{"a": "b"}})
	if err != nil || up.Name != "renamed" || up.Labels["a"] != "b" {
		t.Fatalf("update: %+v %v", up, err)
	}
	_, _, err = f.client.LoadBalancer.Update(ctx, got[0], hcloud.LoadBalancerUpdateOpts{Name: "lb0"})
	wantCode(t, err, hcloud.ErrorCodeUniquenessError)
	byName, _, err := f.client.LoadBalancer.GetByName(ctx, "renamed")
	if err != nil || byName == nil || byName.ID != got[0].ID {
		t.Fatalf("get by name: %v %v", byName, err)
	}
}
