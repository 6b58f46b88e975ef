package fakecloud

import (
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

func TestEvents(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{Now: clock.Now})
	ctx := t.Context()
	nw, servers := lbWorld(t, f, 3)
	res, _, err := f.client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{Name: "lb", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"}, Network: nw,
		Services: []hcloud.LoadBalancerCreateOptsService{{Protocol: "tcp", ListenPort: hcloud.Ptr(80)}, {Protocol: "tcp", ListenPort: hcloud.Ptr(443)}},
		Targets:  []hcloud.LoadBalancerCreateOptsTarget{{Type: "label_selector", LabelSelector: hcloud.LoadBalancerCreateOptsTargetLabelSelector{Selector: "role=worker"}, UsePrivateIP: hcloud.Ptr(true)}}})
	if err != nil {
		t.Fatal(err)
	}

	if err := f.fc.Apply(Event{Type: "power_off_server", Server: servers[0].ID}); err != nil {
		t.Fatal(err)
	}
	if s, _, _ := f.client.Server.GetByID(ctx, servers[0].ID); s.Status != hcloud.ServerStatusOff {
		t.Errorf("after power_off_server: %s", s.Status)
	}
	if err := f.fc.Apply(Event{Type: "power_on_server", Server: servers[0].ID}); err != nil {
		t.Fatal(err)
	}
	if s, _, _ := f.client.Server.GetByID(ctx, servers[0].ID); s.Status != hcloud.ServerStatusRunning {
		t.Errorf("after power_on_server: %s", s.Status)
	}

	if err := f.fc.Apply(Event{Type: "set_target_health", LoadBalancer: res.LoadBalancer.ID, Server: servers[1].ID, ListenPort: 443, Health: "unhealthy"}); err != nil {
		t.Fatal(err)
	}
	lb, _, _ := f.client.LoadBalancer.GetByID(ctx, res.LoadBalancer.ID)
	for _, sub := range lb.Targets[0].Targets {
		want := []string{"healthy", "healthy"}
		if sub.Server.Server.ID == servers[1].ID {
			want = []string{"healthy", "unhealthy"}
		}
		got := []string{string(sub.HealthStatus[0].Status), string(sub.HealthStatus[1].Status)}
		if got[0] != want[0] || got[1] != want[1] {
			t.Errorf("server %d health %v, want %v", sub.Server.Server.ID, got, want)
		}
		// A scripted status says no more why than the API's catch-all.
		for _, h := range sub.HealthStatus {
			if unhealthy := h.Status == "unhealthy"; unhealthy != (h.Detail != nil && *h.Detail == "unspecified") {
				t.Errorf("server %d port %d: %s with detail %v, want unspecified exactly when unhealthy", sub.Server.Server.ID, h.ListenPort, h.Status, h.Detail)
			}
		}
	}

	// checked hands the target back to the health checks: healthy here.
	if err := f.fc.Apply(Event{Type: "set_target_health", LoadBalancer: res.LoadBalancer.ID, Server: servers[1].ID, Health: "checked"}); err != nil {
		t.Fatal(err)
	}
	lb, _, _ = f.client.LoadBalancer.GetByID(ctx, res.LoadBalancer.ID)
	for _, sub := range lb.Targets[0].Targets {
		for _, h := range sub.HealthStatus {
			if h.Status != "healthy" {
				t.Errorf("after checked, server %d port %d is %s, want healthy", sub.Server.Server.ID, h.ListenPort, h.Status)
			}
		}
	}

	if err := f.fc.Apply(Event{Type: "lock", Resource: "load_balancer", ID: lb.ID, For: Duration(30 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	_, _, err = f.client.LoadBalancer.AddService(ctx, lb, hcloud.LoadBalancerAddServiceOpts{Protocol: "tcp", ListenPort: hcloud.Ptr(8080)})
	wantCode(t, err, hcloud.ErrorCodeLocked)
	clock.Advance(30 * time.Second)
	if _, _, err = f.client.LoadBalancer.AddService(ctx, lb, hcloud.LoadBalancerAddServiceOpts{Protocol: "tcp", ListenPort: hcloud.Ptr(8080)}); err != nil {
		t.Fatalf("after the lock ended: %v", err)
	}

	if err := f.fc.Apply(Event{Type: "set_server_ip", Server: servers[2].ID, IP: "203.0.113.50"}); err != nil {
		t.Fatal(err)
	}
	if err := f.fc.Apply(Event{Type: "set_server_ip", Server: servers[2].ID, Network: nw.ID, IP: "10.0.0.200"}); err != nil {
		t.Fatal(err)
	}
	s, _, _ := f.client.Server.GetByID(ctx, servers[2].ID)
	if s.PublicNet.IPv4.IP.String() != "203.0.113.50" || s.PrivateNet[0].IP.String() != "10.0.0.200" {
		t.Errorf("after set_server_ip: public %s private %s", s.PublicNet.IPv4.IP, s.PrivateNet[0].IP)
	}

	if err := f.fc.Apply(Event{Type: "delete_server", Server: servers[2].ID}); err != nil {
		t.Fatal(err)
	}
	if s, _, err := f.client.Server.GetByID(ctx, servers[2].ID); s != nil || err != nil {
		t.Errorf("after delete_server: %v %v", s, err)
	}
	if got := f.fc.Requests("DELETE", ""); got != 0 {
		t.Errorf("an event sent %d API requests", got)
	}
}

func TestEventErrorsChangeNothing(t *testing.T) {
	f := newFixture(t, Options{})
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	before, _ := f.fc.Export()
	bad := []Event{
		{Type: "explode"},
		{Type: "delete_server", Server: 1},
		{Type: "power_off_server"},
		{Type: "set_target_health", LoadBalancer: 1, Server: s.ID, Health: "healthy"},
		{Type: "lock", Resource: "server", ID: s.ID},
		{Type: "lock", Resource: "volume", ID: 1, For: Duration(time.Second)},
		{Type: "set_server_ip", Server: s.ID, IP: "not-an-ip"},
		{Type: "set_server_ip", Server: s.ID, Network: 5, IP: "10.0.0.9"},
	}
	for _, e := range bad {
		if err := f.fc.Apply(e); err == nil {
			t.Errorf("%+v was applied, want an error", e)
		}
	}
	after, _ := f.fc.Export()
	if string(before) != string(after) {
		t.Error("refused events changed the world")
	}
}
