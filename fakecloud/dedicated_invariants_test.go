package fakecloud

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/dedicated"
)

// TestOnePublicAddressOneMachine: a public IPv4 belongs to one machine,
// cloud or dedicated. set_server_ip cannot move a cloud server onto a
// dedicated server's address, main or additional, nor can a dedicated
// server be added on a cloud server's; a refusal changes nothing.
func TestOnePublicAddressOneMachine(t *testing.T) {
	f := newRobotFixture(t, Options{})
	extra := SeedDedicatedServer{Name: "bm-extra", IPv4: "192.0.2.20", IPs: []string{"192.0.2.20", "192.0.2.21"}}
	if err := f.fc.Apply(Event{Type: "add_dedicated_server", DedicatedServer: &extra}); err != nil {
		t.Fatal(err)
	}
	// worker-1 leaves fakecloud's pool for an address of its own.
	if err := f.fc.Apply(Event{Type: "set_server_ip", ServerName: "worker-1", IP: "192.0.2.50"}); err != nil {
		t.Fatal(err)
	}
	before := export(t, f.fc)
	for _, e := range []struct {
		event Event
		want  string
	}{
		{Event{Type: "set_server_ip", ServerName: "worker-1", IP: "192.0.2.10"}, "ip: 192.0.2.10 is held by dedicated server 321"},
		{Event{Type: "set_server_ip", ServerName: "worker-1", IP: "192.0.2.21"}, "ip: 192.0.2.21 is held by dedicated server"},
		{Event{Type: "add_dedicated_server", DedicatedServer: &SeedDedicatedServer{Name: "x", IPv4: "192.0.2.50"}},
			"dedicated_server.server_ip: 192.0.2.50 is held by server"},
		{Event{Type: "add_dedicated_server", DedicatedServer: &SeedDedicatedServer{Name: "x", IPv4: "192.0.2.60", IPs: []string{"192.0.2.60", "192.0.2.50"}}},
			"dedicated_server.ip[1]: 192.0.2.50 is held by server"},
		{Event{Type: "add_dedicated_server", DedicatedServer: &SeedDedicatedServer{Name: "x", IPv4: "192.0.2.61", IPs: []string{"192.0.2.61", "192.0.2.10"}}},
			"dedicated_server.ip[1]: 192.0.2.10 is held by dedicated server 321"},
	} {
		if err := f.fc.Apply(e.event); err == nil || !strings.Contains(err.Error(), e.want) {
			t.Errorf("%+v: %v; want an error saying %q", e.event, err, e.want)
		}
	}
	if after := export(t, f.fc); after != before {
		t.Error("a refused event changed the world")
	}
	// A snapshot where two machines hold one address does not load.
	broken := strings.ReplaceAll(before, `"192.0.2.50"`, `"192.0.2.10"`)
	if err := f.fc.Import([]byte(broken)); err == nil || !strings.Contains(err.Error(), "public IP 192.0.2.10 is also held by") {
		t.Errorf("import of a world where a cloud server holds a dedicated server's address: %v", err)
	}
}

// TestDedicatedAddressesAreHostAddresses: no dedicated server takes an
// address no host can have, in any of its address fields, by seed or by
// event; a private one only while load balancers carry traffic.
func TestDedicatedAddressesAreHostAddresses(t *testing.T) {
	f := newRobotFixture(t, Options{})
	before := export(t, f.fc)
	bad := map[string][]string{
		"server_ip":       {"127.0.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "169.254.1.1", "100.64.0.1", "240.0.0.1", "10.0.0.9", "192.168.1.1"},
		"ip[0]":           {"127.0.0.2", "239.1.1.1", "172.16.0.1"},
		"server_ipv6_net": {"::1", "fe80::", "ff02::", "::", "fd00::"},
		"subnet[0]":       {"fe80::", "::1"},
	}
	for field, addrs := range bad {
		for _, a := range addrs {
			sd := SeedDedicatedServer{Name: "x", IPv4: "192.0.2.30"}
			switch field {
			case "server_ip":
				sd.IPv4 = a
			case "ip[0]":
				sd.IPs = []string{"192.0.2.30", a}
			case "server_ipv6_net":
				sd.IPv6Net = a
			case "subnet[0]":
				sd.Subnets = []dedicated.Subnet{{IP: a, Mask: "64"}}
			}
			named := field
			if field == "ip[0]" {
				named = "ip[1]"
			}
			err := f.fc.Apply(Event{Type: "add_dedicated_server", DedicatedServer: &sd})
			if err == nil || !strings.Contains(err.Error(), "dedicated_server."+named+": ") {
				t.Errorf("%s %s: %v; want it refused naming the field", field, a, err)
			}
			w, perr := ParseWorld(fmt.Appendf(nil, "dedicated_servers: [%s]", mustMarshal(sd)))
			if perr == nil {
				perr = f.fc.Seed(w)
			}
			if perr == nil {
				t.Errorf("a seed with %s %s was accepted", field, a)
			}
		}
	}
	if after := export(t, f.fc); after != before {
		t.Error("a refused event or seed changed the world")
	}
}

// TestDedicatedPrivateAddressWithTraffic: when load balancers carry
// traffic, a local container may play a dedicated server with its private
// address, and that address is then an ip target of a load balancer in no
// network, as make e2e-kind's dedicated node is.
func TestDedicatedPrivateAddressWithTraffic(t *testing.T) {
	fc := New(Options{LoadBalancerIPv4Range: netip.MustParsePrefix("127.0.100.0/24")})
	t.Cleanup(fc.Close)
	if err := fc.Apply(Event{Type: "add_dedicated_server", DedicatedServer: &SeedDedicatedServer{Name: "kind-worker3", IPv4: "172.18.0.5"}}); err != nil {
		t.Fatal(err)
	}
	var lb struct {
		LoadBalancer struct{ ID int64 } `json:"load_balancer"`
	}
	if err := json.Unmarshal(accept(t, fc, "POST", "/v1/load_balancers", `{"name":"lone","load_balancer_type":"lb11","location":"fsn1"}`), &lb); err != nil {
		t.Fatal(err)
	}
	accept(t, fc, "POST", fmt.Sprintf("/v1/load_balancers/%d/actions/add_target", lb.LoadBalancer.ID), `{"type":"ip","ip":{"ip":"172.18.0.5"}}`)
	if err := fc.Apply(Event{Type: "add_dedicated_server", DedicatedServer: &SeedDedicatedServer{Name: "lo", IPv4: "127.0.0.1"}}); err == nil {
		t.Error("a dedicated server on a loopback address was accepted with traffic on")
	}
}

// TestDedicatedServerNumbers: a number is from 1 to dedicated.MaxNumber;
// once the highest is taken, an event without a number is refused
// naming why, and one with a free number still works.
func TestDedicatedServerNumbers(t *testing.T) {
	f := newRobotFixture(t, Options{})
	for _, n := range []int64{-1, dedicated.MaxNumber + 1, 1 << 62} {
		if err := f.fc.Apply(Event{Type: "add_dedicated_server", DedicatedServer: &SeedDedicatedServer{Name: "x", Number: n}}); err == nil ||
			!strings.Contains(err.Error(), "server_number: ") {
			t.Errorf("number %d: %v", n, err)
		}
	}
	if err := f.fc.Apply(Event{Type: "add_dedicated_server", DedicatedServer: &SeedDedicatedServer{Name: "last", Number: dedicated.MaxNumber}}); err != nil {
		t.Fatal(err)
	}
	err := f.fc.Apply(Event{Type: "add_dedicated_server", DedicatedServer: &SeedDedicatedServer{Name: "next"}})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("every number after %d is taken", dedicated.MaxNumber)) {
		t.Errorf("a number after the highest: %v", err)
	}
	if err := f.fc.Apply(Event{Type: "add_dedicated_server", DedicatedServer: &SeedDedicatedServer{Name: "given", Number: 7}}); err != nil {
		t.Errorf("a free number after the highest was taken: %v", err)
	}
	if status, _ := f.get(t, "/server/7"); status != http.StatusOK {
		t.Errorf("GET /server/7: %d", status)
	}
}
