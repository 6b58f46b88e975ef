package fakecloud

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/netaddr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/strict"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// refuse sends a request that must be refused with code and checks that
// the world is as it was.
func refuse(t *testing.T, fc *Server, method, path, body, code string) {
	t.Helper()
	before := export(t, fc)
	rec := answer(t, fc, method, path, strings.NewReader(body))
	if got := errorCode(rec); got != code || rec.Code != StatusForCode(code) {
		t.Errorf("%s %s %q: %d %s, want %s", method, path, body, rec.Code, rec.Body, code)
	}
	if diff := cmp.Diff(before, export(t, fc)); diff != "" {
		t.Errorf("%s %s %q was refused but changed the world (-before +after):\n%s", method, path, body, diff)
	}
}

// accept sends a request that must succeed and returns its body.
func accept(t *testing.T, fc *Server, method, path, body string) []byte {
	t.Helper()
	rec := answer(t, fc, method, path, strings.NewReader(body))
	if rec.Code >= 300 {
		t.Fatalf("%s %s %q: %d %s", method, path, body, rec.Code, rec.Body)
	}
	return rec.Body.Bytes()
}

// TestTextMustBeUTF8: invalid UTF-8 and lone surrogates are json_error, not
// names with replacement characters; a surrogate pair is a character.
func TestTextMustBeUTF8(t *testing.T) {
	fc, _ := seededServer(t)
	key := `"public_key":"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl x"`
	refuse(t, fc, "POST", "/v1/ssh_keys", "{\"name\":\"k\xff\","+key+"}", apierr.CodeJSONError)
	refuse(t, fc, "POST", "/v1/ssh_keys", `{"name":"k\ud800",`+key+`}`, apierr.CodeJSONError)
	refuse(t, fc, "POST", "/v1/ssh_keys", `{"name":"k\udc00\ud800",`+key+`}`, apierr.CodeJSONError)
	for _, ok := range []string{`"a\ud83d\ude00b"`, `"\\ud800"`, `"\u00e9"`} {
		if err := strict.CheckJSONText([]byte(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// TestNullLabelValues: a label value must be a string; null is refused
// where encoding/json would store "".
func TestNullLabelValues(t *testing.T) {
	fc, ids := seededServer(t)
	refuse(t, fc, "PUT", fmt.Sprintf("/v1/servers/%d", ids["server"]), `{"labels":{"a":null}}`, apierr.CodeInvalidInput)
	refuse(t, fc, "POST", "/v1/networks", `{"name":"n","ip_range":"10.1.0.0/16","labels":{"ok":"x","b":null}}`, apierr.CodeInvalidInput)
	refuse(t, fc, "POST", "/_fakecloud/seed", "networks: [{name: n, ip_range: 10.1.0.0/16, labels: {a: null}}]", apierr.CodeInvalidInput)
	accept(t, fc, "PUT", fmt.Sprintf("/v1/servers/%d", ids["server"]), `{"labels":{"a":""}}`)
}

// TestMalformedQueries: a query that does not parse, is not UTF-8 or gives
// a single-valued parameter twice is refused, so no filter is dropped.
func TestMalformedQueries(t *testing.T) {
	fc, _ := seededServer(t)
	for _, q := range []string{"label_selector=role%3Dworker%zz", "name=%ff", "page=1&page=2", "name=a&name=b",
		"per_page=5;page=1", "%ff=1"} {
		refuse(t, fc, "GET", "/v1/servers?"+q, "", apierr.CodeInvalidInput)
	}
	refuse(t, fc, "GET", "/_fakecloud/journal?limit=1&limit=2", "", apierr.CodeInvalidInput)
	accept(t, fc, "GET", "/v1/servers?sort=name&sort=id:desc&status=running&status=off", "")
	accept(t, fc, "GET", "/v1/servers?unknown=1", "")
}

// TestDuplicatesInOneRequest: one resource listed twice is refused.
func TestDuplicatesInOneRequest(t *testing.T) {
	fc, ids := seededServer(t)
	nw := ids["network"]
	refuse(t, fc, "POST", "/v1/servers", fmt.Sprintf(`{"name":"d","server_type":"cx23","image":"ubuntu-24.04","networks":[%d,%d]}`, nw, nw), apierr.CodeInvalidInput)
	refuse(t, fc, "POST", "/v1/certificates", `{"name":"c","type":"managed","domain_names":["a.example.com","a.example.com"]}`, apierr.CodeInvalidInput)
	// fakecloud has no volumes, firewalls or placement groups: naming one
	// must not create a server without it.
	for _, extra := range []string{`"volumes":[1]`, `"firewalls":[{"firewall":1}]`, `"placement_group":1`} {
		refuse(t, fc, "POST", "/v1/servers", `{"name":"d","server_type":"cx23","image":"ubuntu-24.04",`+extra+`}`, apierr.CodeInvalidInput)
	}
}

// TestNetworkAddresses: an ip_range or destination with host bits set is
// refused, not masked.
func TestNetworkAddresses(t *testing.T) {
	fc, ids := seededServer(t)
	actions := fmt.Sprintf("/v1/networks/%d/actions/", ids["network"])
	refuse(t, fc, "POST", "/v1/networks", `{"name":"n","ip_range":"10.1.0.5/16"}`, apierr.CodeInvalidInput)
	refuse(t, fc, "POST", actions+"add_subnet", `{"type":"cloud","network_zone":"eu-central","ip_range":"10.0.1.7/24"}`, apierr.CodeInvalidInput)
	refuse(t, fc, "POST", actions+"add_route", `{"destination":"10.100.0.9/16","gateway":"10.0.0.2"}`, apierr.CodeInvalidInput)
	refuse(t, fc, "POST", actions+"change_ip_range", `{"ip_range":"10.0.0.1/15"}`, apierr.CodeInvalidInput)
	accept(t, fc, "POST", actions+"add_route", `{"destination":"10.100.0.0/16","gateway":"10.0.0.2"}`)
	refuse(t, fc, "POST", actions+"delete_route", `{"destination":"10.100.0.9/16","gateway":"10.0.0.2"}`, apierr.CodeInvalidInput)
	refuse(t, fc, "POST", actions+"delete_subnet", `{"ip_range":"10.0.0.1/24"}`, apierr.CodeInvalidInput)
	accept(t, fc, "POST", actions+"delete_route", `{"destination":"10.100.0.0/16","gateway":"10.0.0.2"}`)
}

// TestIPTargets: an ip target is a public address outside the cloud, a
// private one in a vSwitch subnet of the load balancer's network, or a
// dedicated server's own address, with the API's error codes otherwise.
func TestIPTargets(t *testing.T) {
	fc, ids := seededServer(t)
	attached := fmt.Sprintf("/v1/load_balancers/%d/actions/add_target", ids["load_balancer"])
	var lone struct {
		LoadBalancer struct{ ID int64 } `json:"load_balancer"`
	}
	_ = json.Unmarshal(accept(t, fc, "POST", "/v1/load_balancers", `{"name":"lone","load_balancer_type":"lb11","location":"fsn1"}`), &lone)
	unattached := fmt.Sprintf("/v1/load_balancers/%d/actions/add_target", lone.LoadBalancer.ID)
	target := func(ip string) string { return `{"type":"ip","ip":{"ip":"` + ip + `"}}` }

	for _, ip := range []string{"127.0.0.1", "224.0.0.1", "169.254.1.1", "0.0.0.0", "255.255.255.255", "100.64.0.1",
		"240.0.0.1", "::1", "fe80::1", "fd00::1", "ff02::1", "::ffff:203.0.113.7", "fe80::1%eth0", "10.0.0.256"} {
		refuse(t, fc, "POST", unattached, target(ip), apierr.CodeInvalidInput)
	}
	for _, ip := range []string{"198.18.0.2", "198.19.255.1", "2001:db8:0:1::1"} {
		refuse(t, fc, "POST", unattached, target(ip), "cloud_resource_ip_not_allowed")
	}
	refuse(t, fc, "POST", unattached, target("10.0.0.9"), "load_balancer_not_attached_to_network")
	refuse(t, fc, "POST", attached, target("10.0.0.9"), "network_has_no_vswitch_subnet")
	accept(t, fc, "POST", fmt.Sprintf("/v1/networks/%d/actions/add_subnet", ids["network"]),
		`{"type":"vswitch","vswitch_id":1000,"network_zone":"eu-central","ip_range":"10.0.8.0/24"}`)
	refuse(t, fc, "POST", attached, target("10.0.0.9"), "ip_not_in_vswitch_subnet")
	accept(t, fc, "POST", attached, target("10.0.8.9"))
	accept(t, fc, "POST", unattached, target("203.0.113.10"))
	accept(t, fc, "POST", unattached, target("2a01:4f8::1"))
	// A private address is a target only through a network, and no
	// dedicated server takes one while load balancers carry no traffic
	// (TestDedicatedPrivateAddressWithTraffic has the other case).
	refuse(t, fc, "POST", unattached, target("172.18.0.5"), "load_balancer_not_attached_to_network")
	if err := fc.Apply(Event{Type: "add_dedicated_server", DedicatedServer: &SeedDedicatedServer{Name: "ded", IPv4: "172.18.0.5"}}); err == nil ||
		!strings.Contains(err.Error(), "172.18.0.5 is a private address") {
		t.Fatalf("a dedicated server on a private address without traffic: %v", err)
	}
	refuse(t, fc, "POST", unattached, target("172.18.0.5"), "load_balancer_not_attached_to_network")
}

// TestEventsKeepAddressesOwned: set_server_ip gives a server only an
// address nobody holds, inside a subnet of its network.
func TestEventsKeepAddressesOwned(t *testing.T) {
	fc, _ := seededServer(t)
	var st world.Snapshot
	if err := json.Unmarshal([]byte(export(t, fc)), &st); err != nil {
		t.Fatal(err)
	}
	a, b := st.Servers[0], st.Servers[1]
	lbIP := st.LoadBalancers[0].PublicNet.IPv4.IP
	nw := st.Networks[0].ID
	bad := []Event{
		{Type: "set_server_ip", Server: a.ID, IP: b.PublicNet.IPv4.IP},
		{Type: "set_server_ip", Server: a.ID, IP: lbIP},
		{Type: "set_server_ip", Server: a.ID, IP: "10.0.0.50"},
		{Type: "set_server_ip", Server: a.ID, IP: "127.0.0.1"},
		{Type: "set_server_ip", Server: a.ID, IP: "198.19.200.1"}, // in the pool, never handed out
		{Type: "set_server_ip", Server: a.ID, Network: nw, IP: b.PrivateNet[0].IP},
		{Type: "set_server_ip", Server: a.ID, Network: nw, IP: "10.0.5.1"},   // outside every subnet
		{Type: "set_server_ip", Server: a.ID, Network: nw, IP: "10.0.0.1"},   // the subnet's gateway
		{Type: "set_server_ip", Server: a.ID, Network: nw, IP: "10.0.0.255"}, // its broadcast
		{Type: "set_server_ip", Server: a.ID, Network: nw, IP: "192.168.0.1"},
	}
	before, changes := export(t, fc), changesOf(t, fc)
	for _, e := range bad {
		if err := fc.Apply(e); err == nil {
			t.Errorf("%+v was applied, want an error", e)
		}
	}
	if diff := cmp.Diff(before, export(t, fc)); diff != "" {
		t.Errorf("refused events changed the world:\n%s", diff)
	}
	if now := changesOf(t, fc); now != changes {
		t.Errorf("refused events counted as %d changes, which persistence would write", now-changes)
	}
	for _, e := range []Event{{Type: "set_server_ip", Server: a.ID, IP: "203.0.113.50"}, {Type: "set_server_ip", Server: a.ID, Network: nw, IP: "10.0.0.200"}} {
		if err := fc.Apply(e); err != nil {
			t.Errorf("%+v: %v", e, err)
		}
	}
}

// TestImportKeepsInvariants: a snapshot in which two resources hold one
// address, or a private IP lies outside its subnets, is refused whole.
func TestImportKeepsInvariants(t *testing.T) {
	fc, _ := seededServer(t)
	good := export(t, fc)
	breaks := map[string]func(st *world.Snapshot){
		"shared public IP": func(st *world.Snapshot) { st.Servers[1].PublicNet.IPv4.IP = st.Servers[0].PublicNet.IPv4.IP },
		"shared private IP": func(st *world.Snapshot) {
			st.Servers[1].PrivateNet[0].IP = st.Servers[0].PrivateNet[0].IP
		},
		"private IP outside its subnets": func(st *world.Snapshot) { st.Servers[0].PrivateNet[0].IP = "10.0.9.9" },
		"LB on a server's address":       func(st *world.Snapshot) { st.LoadBalancers[0].PublicNet.IPv4.IP = st.Servers[0].PublicNet.IPv4.IP },
		"held address still free": func(st *world.Snapshot) {
			st.PublicIPv4.Free = append(st.PublicIPv4.Free, netip.MustParseAddr(st.Servers[0].PublicNet.IPv4.IP))
		},
		"held address not handed out": func(st *world.Snapshot) { st.PublicIPv4.Next = netaddr.PublicIPv4Range.Addr().Next() },
		"subnet with host bits":       func(st *world.Snapshot) { st.Networks[0].Subnets[0].IPRange = "10.0.0.1/24" },
		"primary IP of nobody":        func(st *world.Snapshot) { id := int64(999); st.PrimaryIPs[0].AssigneeID = &id },
		"ID counter behind the IDs":   func(st *world.Snapshot) { delete(st.LastIDs, "server") },
		"no address pool":             func(st *world.Snapshot) { st.PublicIPv4 = world.PoolState{} },
	}
	for name, brk := range breaks {
		var st world.Snapshot
		if err := json.Unmarshal([]byte(good), &st); err != nil {
			t.Fatal(err)
		}
		brk(&st)
		data, _ := json.Marshal(st)
		if err := fc.Import(data); err == nil {
			t.Errorf("%s: imported", name)
		}
		if diff := cmp.Diff(good, export(t, fc)); diff != "" {
			t.Fatalf("%s: a refused import changed the world:\n%s", name, diff)
		}
	}
}

// changesOf is the world's change count, which persistence watches.
func changesOf(t testing.TB, fc *Server) uint64 {
	t.Helper()
	_, changes, err := fc.world.ExportChanged(^uint64(0), false)
	if err != nil {
		t.Fatal(err)
	}
	return changes
}
