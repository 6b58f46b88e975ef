package fakecloud

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// seededServer is a fakecloud with the small world from testdata, on a
// stopped clock so that two seedings give identical worlds.
func seededServer(t testing.TB) (*Server, map[string]int64) {
	t.Helper()
	return seededServerWith(t, Options{Now: newClock().Now})
}

// seededServerWith seeds the small world into a fakecloud with options.
func seededServerWith(t testing.TB, opts Options) (*Server, map[string]int64) {
	t.Helper()
	fc := New(opts)
	w, err := LoadWorld("../testdata/worlds/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := fc.Seed(w); err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{}
	var st world.Snapshot
	data, _ := fc.Export()
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	ids["server"], ids["load_balancer"], ids["network"] = st.Servers[0].ID, st.LoadBalancers[0].ID, st.Networks[0].ID
	return fc, ids
}

// endpoints are the writing endpoints, with {server}, {lb} and {network}
// standing for IDs of the seeded world.
var endpoints = []string{
	"POST /v1/servers", "PUT /v1/servers/{server}",
	"POST /v1/servers/{server}/actions/attach_to_network", "POST /v1/servers/{server}/actions/detach_from_network",
	"POST /v1/servers/{server}/actions/change_protection", "POST /v1/servers/{server}/actions/change_type",
	"POST /v1/servers/{server}/actions/change_dns_ptr",
	"POST /v1/load_balancers", "PUT /v1/load_balancers/{lb}",
	"POST /v1/load_balancers/{lb}/actions/add_service", "POST /v1/load_balancers/{lb}/actions/update_service",
	"POST /v1/load_balancers/{lb}/actions/delete_service", "POST /v1/load_balancers/{lb}/actions/add_target",
	"POST /v1/load_balancers/{lb}/actions/remove_target", "POST /v1/load_balancers/{lb}/actions/attach_to_network",
	"POST /v1/load_balancers/{lb}/actions/detach_from_network", "POST /v1/load_balancers/{lb}/actions/change_algorithm",
	"POST /v1/load_balancers/{lb}/actions/change_type", "POST /v1/load_balancers/{lb}/actions/change_dns_ptr",
	"POST /v1/networks", "PUT /v1/networks/{network}",
	"POST /v1/networks/{network}/actions/add_subnet", "POST /v1/networks/{network}/actions/delete_subnet",
	"POST /v1/networks/{network}/actions/add_route", "POST /v1/networks/{network}/actions/delete_route",
	"POST /v1/networks/{network}/actions/change_ip_range",
	"POST /v1/certificates", "POST /v1/ssh_keys",
}

func endpoint(i int, ids map[string]int64) (string, string) {
	method, path, _ := strings.Cut(endpoints[i%len(endpoints)], " ")
	path = strings.NewReplacer("{server}", fmt.Sprint(ids["server"]), "{lb}", fmt.Sprint(ids["load_balancer"]),
		"{network}", fmt.Sprint(ids["network"])).Replace(path)
	return method, path
}

// send serves one request in-process and checks the answer's shape.
func send(t testing.TB, fc *Server, method, path string, body []byte) int {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+DefaultToken)
	rec := httptest.NewRecorder()
	fc.ServeHTTP(rec, req)
	if rec.Code >= 500 {
		t.Fatalf("%s %s %q: status %d %s", method, path, body, rec.Code, rec.Body)
	}
	if rec.Code >= 400 {
		var env wire.Envelope
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env.Error.Code == "" || env.Error.Message == "" {
			t.Fatalf("%s %s %q: %d without an error envelope: %s", method, path, body, rec.Code, rec.Body)
		}
		if rec.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("%s %s: error without Content-Type application/json", method, path)
		}
	} else if rec.Code != http.StatusNoContent && !json.Valid(rec.Body.Bytes()) {
		t.Fatalf("%s %s %q: %d with invalid JSON", method, path, body, rec.Code)
	}
	return rec.Code
}

// TestRejectedRequestsChangeNothing sends a batch of bad requests to every
// writing endpoint and compares the whole world before and after.
func TestRejectedRequestsChangeNothing(t *testing.T) {
	fc, ids := seededServer(t)
	before, err := fc.Export()
	if err != nil {
		t.Fatal(err)
	}
	bodies := []string{
		`{`, `[]`, `"x"`, `{"name": 5}`, `{"name":"x","ip_range":"nope"}`, `{"network": -1}`, `{"listen_port":"80"}`,
		`{"protocol":"udp","listen_port":1}`, `{"type":"server","server":{"id":1}}`, `{"type":"bogus"}`,
		`{"destination":"1.2.3.0/24","gateway":"10.0.0.1"}`, `{"ip_range":"192.168.0.0/16"}`, `{"server_type":"nope"}`,
		`{"labels":{"hetzner.cloud/x":"y"}}`, `{"labels":{"ok":"bad value!"}}`, `{"type":"lb99","load_balancer_type":"lb99"}`,
		`{"name":"control-plane-1","server_type":"cx23","image":"ubuntu-24.04"}`, `{"ip":"1.1.1.1","dns_ptr":"x"}`,
	}
	rejected := 0
	for i := range endpoints {
		method, path := endpoint(i, ids)
		for _, b := range bodies {
			snapshot, _ := fc.Export()
			if code := send(t, fc, method, path, []byte(b)); code < 400 {
				// An accepted request is not part of this test: start over from the seed.
				t.Logf("%s %s %s accepted (%d); resetting", method, path, b, code)
				fc, ids = seededServer(t)
				continue
			}
			rejected++
			after, _ := fc.Export()
			if diff := cmp.Diff(string(snapshot), string(after)); diff != "" {
				t.Fatalf("%s %s %s was rejected but changed the world (-before +after):\n%s", method, path, b, diff)
			}
		}
	}
	after, _ := fc.Export()
	if diff := cmp.Diff(string(before), string(after)); diff != "" {
		t.Errorf("world changed (-before +after):\n%s", diff)
	}
	if rejected < len(endpoints)*len(bodies)*8/10 {
		t.Errorf("only %d of %d requests were rejected", rejected, len(endpoints)*len(bodies))
	}
}
