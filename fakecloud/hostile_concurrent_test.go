package fakecloud

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestHostileConcurrent: 16 clients over TCP mix the generated bad
// requests with valid ones that create, attach, route, target and delete,
// and admin events that power off or move servers, for at most 3 s and
// 300 requests each. No answer is a 5xx or late, and afterwards the world
// keeps its invariants and its network index matches its resources.
func TestHostileConcurrent(t *testing.T) {
	gen := newHostile(t)
	var bad []hostileCase
	for _, op := range specOps(t, gen.fc.api) {
		for i, c := range gen.opCases(op) {
			if i%5 == 0 && c.remote == "" {
				bad = append(bad, c)
			}
		}
	}
	fc := hostileWorld(t)
	var st state
	if err := json.Unmarshal([]byte(export(t, fc)), &st); err != nil {
		t.Fatal(err)
	}
	ids := worldIDs{server: st.Servers[0].ID, network: st.Networks[0].ID, lb: st.LoadBalancers[0].ID}
	srv := httptest.NewServer(fc)
	t.Cleanup(srv.Close)
	client := &http.Client{Timeout: answerDeadline}
	deadline := time.Now().Add(3 * time.Second)
	var sent, fails, changed atomic.Int64
	var wg sync.WaitGroup
	for worker := range 16 {
		wg.Go(func() {
			for n := 0; n < 300 && time.Now().Before(deadline) && fails.Load() == 0; n++ {
				c := bad[(worker*7919+n*31)%len(bad)]
				if n%2 == 0 {
					c = validCase(worker, n, ids)
				}
				sent.Add(1)
				code, err := sendTCP(client, srv.URL, c)
				if err != nil {
					fails.Add(1)
					t.Errorf("%s %s (%s): %v", c.method, short(c.path), c.why, err)
				}
				if code > 0 && code < 300 && c.method != http.MethodGet {
					changed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d requests from 16 clients, %d of them accepted changes; %d generated bad ones to choose from", sent.Load(), changed.Load(), len(bad))
	if changed.Load() < 200 {
		t.Errorf("only %d requests changed the world: the run tested little", changed.Load())
	}
	data := export(t, fc) // checks the invariants
	rebuilt, _ := seededServerWith(t, Options{Now: newClock().Now})
	if err := rebuilt.Import([]byte(data)); err != nil {
		t.Fatalf("the world after the run does not import: %v", err)
	}
	var live, fresh map[int64]map[string]bool
	fc.world.locked(func() { live = usedAddrs(fc.world) })
	rebuilt.world.locked(func() { fresh = usedAddrs(rebuilt.world) })
	if diff := cmp.Diff(fresh, live); diff != "" {
		t.Errorf("the network index does not match the resources (-rebuilt +live):\n%s", diff)
	}
}

// usedAddrs is the world's index of addresses in use per network.
func usedAddrs(w *world) map[int64]map[string]bool {
	out := map[int64]map[string]bool{}
	for id, used := range w.netUsed {
		out[id] = map[string]bool{}
		for a := range maps.Keys(used) {
			out[id][a.String()] = true
		}
	}
	return out
}

// worldIDs are the first server, the network and the load balancer of
// the small world.
type worldIDs struct{ server, network, lb int64 }

// validCase is a request a client may well send, varied by worker and
// turn; server IDs run over the seeded servers and those the run creates.
func validCase(worker, n int, ids worldIDs) hostileCase {
	name := fmt.Sprintf("w%d-%d", worker, n)
	srv := ids.server + int64((worker*13+n)%40)
	cases := []hostileCase{
		{method: "POST", path: "/v1/servers", body: []byte(fmt.Sprintf(`{"name":"%s","server_type":"cx22","image":"ubuntu-24.04","networks":[%d]}`, name, ids.network))},
		{method: "DELETE", path: fmt.Sprintf("/v1/servers/%d", srv)},
		{method: "POST", path: fmt.Sprintf("/v1/networks/%d/actions/add_route", ids.network), body: []byte(fmt.Sprintf(`{"destination":"10.%d.%d.0/24","gateway":"10.0.0.2"}`, 100+worker, n%250))},
		{method: "POST", path: fmt.Sprintf("/v1/load_balancers/%d/actions/add_target", ids.lb), body: []byte(fmt.Sprintf(`{"type":"server","server":{"id":%d},"use_private_ip":true}`, srv))},
		{method: "POST", path: "/v1/load_balancers", body: []byte(fmt.Sprintf(`{"name":"%s","load_balancer_type":"lb11","location":"fsn1","network":%d}`, name, ids.network))},
		{method: "POST", path: "/_fakecloud/events", body: []byte(fmt.Sprintf(`{"type":"power_off_server","server":%d}`, srv))},
		{method: "POST", path: "/_fakecloud/events", body: []byte(fmt.Sprintf(`{"type":"set_server_ip","server":%d,"network":%d,"ip":"10.0.0.%d"}`, srv, ids.network, 10+n%200))},
		{method: "POST", path: "/_fakecloud/events", body: []byte(fmt.Sprintf(`{"type":"set_server_ip","server":%d,"ip":"203.0.113.%d"}`, srv, n%250))},
		{method: "POST", path: fmt.Sprintf("/v1/servers/%d/actions/detach_from_network", srv), body: []byte(fmt.Sprintf(`{"network":%d}`, ids.network))},
		{method: "POST", path: fmt.Sprintf("/v1/servers/%d/actions/attach_to_network", srv), body: []byte(fmt.Sprintf(`{"network":%d}`, ids.network))},
		{method: "GET", path: "/v1/servers?per_page=50"},
	}
	c := cases[(worker+n)%len(cases)]
	c.why = "valid"
	return c
}

// sendTCP sends a case over the network and checks the answer: in time,
// not 5xx, and an error envelope for an error.
func sendTCP(client *http.Client, base string, c hostileCase) (int, error) {
	req, err := http.NewRequest(c.method, base+c.path, bytes.NewReader(c.body))
	if err != nil {
		return 0, nil // not a request a client library can form
	}
	req.Header.Set("Authorization", "Bearer "+DefaultToken)
	for i := 0; i+1 < len(c.header); i += 2 {
		req.Header.Set(c.header[i], c.header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode >= 500 {
		return 0, fmt.Errorf("status %d: %.300s", resp.StatusCode, body)
	}
	var env errorEnvelope
	if resp.StatusCode >= 400 && (json.Unmarshal(body, &env) != nil || env.Error.Code == "") {
		return 0, fmt.Errorf("%d without an error envelope: %.300s", resp.StatusCode, body)
	}
	return resp.StatusCode, nil
}
