package fakecloud

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// TestHostileConcurrent: 16 clients over TCP mix the generated bad
// requests with valid ones that create and delete servers, networks,
// subnets, routes, load balancers, services and targets, and admin events
// that power off, move and delete servers, each client also acting on the
// others' resources, for at most 3 s and 500 requests each. No answer is
// a 5xx or late, every error is an envelope, and afterwards the world
// keeps checkWorld, imports, and its network index matches its resources.
func TestHostileConcurrent(t *testing.T) {
	gen := newHostile(t, "")
	var bad []hostileCase
	for _, op := range specOps(t, gen.fc.api) {
		for i, c := range gen.generate(op)[1:] {
			if i%5 == 0 {
				bad = append(bad, c)
			}
		}
	}
	fc := hostileWorld(t, "")
	pool := newLivePool(t, fc)
	srv := httptest.NewServer(fc)
	t.Cleanup(srv.Close)
	client := &http.Client{Timeout: answerDeadline}
	deadline := time.Now().Add(3 * time.Second)
	var sent, fails, changed atomic.Int64
	var wg sync.WaitGroup
	for worker := range 16 {
		wg.Go(func() {
			for n := 0; n < 500 && time.Now().Before(deadline) && fails.Load() == 0; n++ {
				c := bad[(worker*7919+n*31)%len(bad)]
				if n%3 != 0 {
					c = pool.valid(worker, n)
				}
				sent.Add(1)
				code, body, err := sendTCP(client, srv.URL, c)
				if err != nil {
					fails.Add(1)
					t.Errorf("%s %s (%s): %v", c.method, short(c.path), c.why, err)
				}
				if code >= 200 && code < 300 && c.method != http.MethodGet {
					changed.Add(1)
					pool.note(body)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d requests from 16 clients, %d of them accepted changes; %d generated bad ones to choose from", sent.Load(), changed.Load(), len(bad))
	if changed.Load() < 100 { // a floor that a run whose valid requests all fail misses
		t.Errorf("only %d requests changed the world: the run tested little", changed.Load())
	}
	data := export(t, fc) // checks the world
	rebuilt, _ := seededServerWith(t, Options{Now: newClock().Now})
	if err := rebuilt.Import([]byte(data)); err != nil {
		t.Fatalf("the world after the run does not import: %v", err)
	}
	if err := fc.world.CheckIndex(); err != nil {
		t.Error(err)
	}
	if err := rebuilt.world.CheckIndex(); err != nil {
		t.Errorf("the world imported: %v", err)
	}
}

// livePool holds the IDs of the resources the clients know, the seeded
// ones and those they created, shared by every client.
type livePool struct {
	createdIDs
	cluster, lb int64
}

// createdIDs are the IDs of servers, networks and load balancers that
// concurrent clients know, under mu.
type createdIDs struct {
	mu                     sync.Mutex
	servers, networks, lbs []int64
}

func newLivePool(t testing.TB, fc *Server) *livePool {
	var st world.Snapshot
	if err := json.Unmarshal([]byte(export(t, fc)), &st); err != nil {
		t.Fatal(err)
	}
	p := &livePool{cluster: st.Networks[0].ID, lb: st.LoadBalancers[0].ID}
	for _, s := range st.Servers {
		p.servers = append(p.servers, s.ID)
	}
	for _, n := range st.Networks {
		p.networks = append(p.networks, n.ID)
	}
	p.lbs = []int64{p.lb}
	return p
}

// note records the resource a creating request answered with.
func (p *createdIDs) note(body []byte) {
	var created struct {
		Server       *struct{ ID int64 } `json:"server"`
		Network      *struct{ ID int64 } `json:"network"`
		LoadBalancer *struct{ ID int64 } `json:"load_balancer"`
	}
	if json.Unmarshal(body, &created) != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case created.Server != nil:
		p.servers = append(p.servers, created.Server.ID)
	case created.Network != nil:
		p.networks = append(p.networks, created.Network.ID)
	case created.LoadBalancer != nil:
		p.lbs = append(p.lbs, created.LoadBalancer.ID)
	}
}

// pick is a server, a network and a load balancer among the latest
// known, which are the likeliest to exist still.
func (p *livePool) pick(i int) (srv, nw, lb int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	recent := func(ids []int64) int64 { return ids[len(ids)-1-i%min(len(ids), 6)] }
	return recent(p.servers), recent(p.networks), recent(p.lbs)
}

// valid is a request a client may well send, varied by worker and turn;
// it names a resource of the pool, which another client may have deleted.
func (p *livePool) valid(worker, n int) hostileCase {
	name := fmt.Sprintf("w%d-%d", worker, n)
	i := worker*13 + n
	srv, nw, lb := p.pick(i)
	port := 1000 + worker*300 + n
	subnet := fmt.Sprintf("10.0.%d.0/24", 10+i%200)
	route := fmt.Sprintf(`{"destination":"10.%d.%d.0/24","gateway":"10.0.0.%d"}`, 100+worker, n%250, 2+n%200)
	cases := []struct{ method, path, body string }{
		{"POST", "/v1/servers", fmt.Sprintf(`{"name":"%s","server_type":"cx23","image":"ubuntu-24.04","networks":[%d]}`, name, p.cluster)},
		{"DELETE", fmt.Sprintf("/v1/servers/%d", srv), ""},
		{"POST", "/v1/networks", fmt.Sprintf(`{"name":"%s","ip_range":"10.%d.0.0/16","subnets":[{"type":"cloud","ip_range":"10.%d.0.0/24","network_zone":"eu-central"}]}`, name, 40+worker, 40+worker)},
		{"DELETE", fmt.Sprintf("/v1/networks/%d", nw), ""},
		{"POST", fmt.Sprintf("/v1/networks/%d/actions/add_subnet", p.cluster), fmt.Sprintf(`{"type":"cloud","ip_range":"%s","network_zone":"eu-central"}`, subnet)},
		{"POST", fmt.Sprintf("/v1/networks/%d/actions/delete_subnet", p.cluster), fmt.Sprintf(`{"ip_range":"%s"}`, subnet)},
		{"POST", fmt.Sprintf("/v1/networks/%d/actions/add_route", p.cluster), route},
		{"POST", fmt.Sprintf("/v1/networks/%d/actions/delete_route", p.cluster), route},
		{"POST", fmt.Sprintf("/v1/servers/%d/actions/attach_to_network", srv), fmt.Sprintf(`{"network":%d}`, nw)},
		{"POST", fmt.Sprintf("/v1/servers/%d/actions/detach_from_network", srv), fmt.Sprintf(`{"network":%d}`, nw)},
		{"POST", "/v1/load_balancers", fmt.Sprintf(`{"name":"%s","load_balancer_type":"lb11","location":"fsn1","network":%d}`, name, p.cluster)},
		{"DELETE", fmt.Sprintf("/v1/load_balancers/%d", lb), ""},
		{"POST", fmt.Sprintf("/v1/load_balancers/%d/actions/add_service", lb), fmt.Sprintf(`{"protocol":"tcp","listen_port":%d,"destination_port":80,"proxyprotocol":false,"health_check":{"protocol":"tcp","port":80,"interval":15,"timeout":10,"retries":3}}`, port)},
		{"POST", fmt.Sprintf("/v1/load_balancers/%d/actions/delete_service", lb), fmt.Sprintf(`{"listen_port":%d}`, port-3)},
		{"POST", fmt.Sprintf("/v1/load_balancers/%d/actions/add_target", lb), fmt.Sprintf(`{"type":"server","server":{"id":%d},"use_private_ip":true}`, srv)},
		{"POST", fmt.Sprintf("/v1/load_balancers/%d/actions/remove_target", lb), fmt.Sprintf(`{"type":"server","server":{"id":%d}}`, srv)},
		{"POST", fmt.Sprintf("/v1/load_balancers/%d/actions/attach_to_network", lb), fmt.Sprintf(`{"network":%d}`, nw)},
		{"POST", fmt.Sprintf("/v1/load_balancers/%d/actions/detach_from_network", lb), fmt.Sprintf(`{"network":%d}`, nw)},
		{"POST", "/_fakecloud/events", fmt.Sprintf(`{"type":"power_off_server","server":%d}`, srv)},
		{"POST", "/_fakecloud/events", fmt.Sprintf(`{"type":"set_server_ip","server":%d,"network":%d,"ip":"10.0.0.%d"}`, srv, p.cluster, 10+n%200)},
		{"POST", "/_fakecloud/events", fmt.Sprintf(`{"type":"set_server_ip","server":%d,"ip":"203.0.113.%d"}`, srv, n%250)},
		{"POST", "/_fakecloud/events", fmt.Sprintf(`{"type":"delete_server","server":%d}`, srv)},
		{"GET", "/v1/servers?per_page=50", ""},
		{"GET", fmt.Sprintf("/v1/networks/%d", nw), ""},
	}
	c := cases[(worker+n*7)%len(cases)]
	return hostileCase{why: "valid", method: c.method, path: c.path, body: []byte(c.body)}
}

// sendTCP sends a case over the network and checks the answer: in time,
// not 5xx, and an error envelope for an error. It returns the status and
// the body.
func sendTCP(client *http.Client, base string, c hostileCase) (int, []byte, error) {
	req, err := http.NewRequest(c.method, base+c.path, bytes.NewReader(c.body))
	if err != nil {
		return 0, nil, nil // not a request a client library can form
	}
	req.Header.Set("Authorization", "Bearer "+DefaultToken)
	for i := 0; i+1 < len(c.header); i += 2 {
		if c.header[i+1] == "" {
			req.Header.Del(c.header[i])
			continue
		}
		req.Header.Set(c.header[i], c.header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	if resp.StatusCode >= 500 {
		return 0, nil, fmt.Errorf("status %d: %.300s", resp.StatusCode, body)
	}
	var env wire.Envelope
	if resp.StatusCode >= 400 && (json.Unmarshal(body, &env) != nil || env.Error.Code == "" || env.Error.Message == "" ||
		resp.Header.Get("Content-Type") != "application/json") {
		return 0, nil, fmt.Errorf("%d without an error envelope: %.300s", resp.StatusCode, body)
	}
	return resp.StatusCode, body, nil
}
