package fakecloud

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestExportUnderStress: five clients create and delete networks, servers
// in them, and load balancers, attach and detach them, while two admin
// clients add action faults (failures and delays) and events (servers
// deleted, powered off, moved in a network, networks locked) and now and
// then put an export of a moment ago back; actions run 2 ms.
// Meanwhile 25 exports are taken one after another, each client sending
// 10 requests per export: every one loads again, by PUT
// /_fakecloud/state on another fakecloud or by Import, and so does the
// last, once every action has ended.
func TestExportUnderStress(t *testing.T) {
	fc := New(Options{RateLimit: -1, ActionDuration: 2 * time.Millisecond})
	st := &stressPool{}
	deadline := time.Now().Add(30 * time.Second) // a bound only: the run ends at stressExports
	var accepted, exports atomic.Int64
	var wg sync.WaitGroup
	for worker := range 7 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(worker), 53))
			for n := 0; exports.Load() < stressExports && time.Now().Before(deadline) && !t.Failed(); n++ {
				for exports.Load() < int64(n/stressPace) && time.Now().Before(deadline) && !t.Failed() {
					time.Sleep(100 * time.Microsecond) // the world grows no faster than exports are taken
				}
				method, path, body := st.next(rng, worker, n, worker >= 5)
				rec := answer(t, fc, method, path, strings.NewReader(body))
				if rec.Code >= 500 {
					t.Errorf("%s %s: %d %.300s", method, path, rec.Code, rec.Body)
				}
				if rec.Code < 300 && method != http.MethodGet {
					accepted.Add(1)
					st.note(rec.Body.Bytes())
				}
			}
		})
	}
	var done atomic.Bool
	var exporter sync.WaitGroup
	exporter.Go(func() {
		for !done.Load() && !t.Failed() {
			n := exports.Add(1)
			rec := answer(t, fc, "GET", "/_fakecloud/state", nil)
			if rec.Code != http.StatusOK {
				t.Errorf("export %d: %d %.300s", n, rec.Code, rec.Body)
				return
			}
			st.mu.Lock()
			st.export = rec.Body.String()
			st.mu.Unlock()
			if err := loads(t, rec.Body.String(), n%2 == 0); err != nil {
				t.Errorf("export %d, taken under load, does not load again: %v", n, err)
			}
		}
	})
	wg.Wait()
	done.Store(true)
	exporter.Wait()
	t.Logf("%d changes accepted, %d exports", accepted.Load(), exports.Load())
	if accepted.Load() < 500 || exports.Load() < stressExports { // floors a run that tested little misses
		t.Errorf("only %d changes accepted and %d exports taken: the run tested little", accepted.Load(), exports.Load())
	}
	time.Sleep(20 * time.Millisecond) // every action ends; the last export settles them
	data, err := fc.Export()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("last export %d bytes", len(data))
	if err := loads(t, string(data), false); err != nil {
		t.Errorf("the export after the run does not load again: %v", err)
	}
}

// The stress test takes stressExports exports, while each client sends
// stressPace requests per export taken.
const stressExports, stressPace = 25, 10

// loads puts a snapshot into a new fakecloud, by the admin API or by
// Import.
func loads(t *testing.T, data string, byAdmin bool) error {
	other := New(Options{})
	if !byAdmin {
		return other.Import([]byte(data))
	}
	if rec := answer(t, other, "PUT", "/_fakecloud/state", strings.NewReader(data)); rec.Code != http.StatusNoContent {
		return fmt.Errorf("PUT /_fakecloud/state: %d %s", rec.Code, rec.Body)
	}
	return nil
}

// stressPool holds the IDs of what the stress test's clients created,
// so each acts on the others' resources too.
type stressPool struct {
	createdIDs
	export string // one taken a moment ago, which an admin puts back (under mu)
}

// recent is one of the last few IDs, the likeliest to exist still.
func (p *stressPool) recent(rng *rand.Rand, ids []int64) int64 {
	if len(ids) == 0 {
		return 1
	}
	return ids[len(ids)-1-rng.IntN(min(len(ids), 5))]
}

// stressCommands are the commands whose actions the admin client fails
// or delays.
var stressCommands = []string{"attach_to_network", "detach_from_network", "create_server", "start_server", "stop_server",
	"change_alias_ips", "change_protection", "delete_server"}

// next is a client's next request: an admin's fault or event, or an API
// request on the pool's resources.
func (p *stressPool) next(rng *rand.Rand, worker, n int, admin bool) (method, path, body string) {
	p.mu.Lock()
	nw, srv, lb := p.recent(rng, p.networks), p.recent(rng, p.servers), p.recent(rng, p.lbs)
	export := p.export
	p.mu.Unlock()
	name := fmt.Sprintf("w%d-%d", worker, n)
	if admin {
		cmd := stressCommands[rng.IntN(len(stressCommands))]
		if rng.IntN(2) == 0 {
			cmd = "attach_to_network" // the one that spans a network's deletion
		}
		switch rng.IntN(7) {
		case 6:
			if rng.IntN(5) == 0 && export != "" { // the world goes back a moment now and then
				return "PUT", "/_fakecloud/state", export
			}
			return "GET", "/v1/networks", ""
		case 5:
			return "POST", "/_fakecloud/events", fmt.Sprintf(`{"type":"lock","resource":"network","id":%d,"for":"20ms"}`, nw)
		case 0:
			return "POST", "/_fakecloud/action-faults", fmt.Sprintf(`{"command":%q,"count":1,"error_code":"action_failed","error_message":"stress"}`, cmd)
		case 1:
			return "POST", "/_fakecloud/action-faults", fmt.Sprintf(`{"command":%q,"count":1,"delay":"30ms"}`, cmd)
		case 2:
			return "POST", "/_fakecloud/events", fmt.Sprintf(`{"type":"delete_server","server":%d}`, srv)
		case 3:
			return "POST", "/_fakecloud/events", fmt.Sprintf(`{"type":"power_off_server","server":%d}`, srv)
		default:
			return "POST", "/_fakecloud/events", fmt.Sprintf(`{"type":"set_server_ip","server":%d,"network":%d,"ip":"10.0.0.%d"}`, srv, nw, 2+rng.IntN(250))
		}
	}
	switch rng.IntN(12) {
	case 0, 1:
		return "POST", "/v1/networks", fmt.Sprintf(`{"name":%q,"ip_range":"10.0.0.0/16","subnets":[{"type":"cloud","ip_range":"10.0.0.0/24","network_zone":"eu-central"}]}`, name)
	case 2:
		return "DELETE", fmt.Sprintf("/v1/networks/%d", nw), ""
	case 3, 4:
		return "POST", "/v1/servers", fmt.Sprintf(`{"name":%q,"server_type":"cx23","image":"ubuntu-24.04","location":"fsn1","networks":[%d]}`, name, nw)
	case 5:
		return "DELETE", fmt.Sprintf("/v1/servers/%d", srv), ""
	case 6:
		return "POST", fmt.Sprintf("/v1/servers/%d/actions/attach_to_network", srv), fmt.Sprintf(`{"network":%d}`, nw)
	case 7:
		return "POST", fmt.Sprintf("/v1/servers/%d/actions/detach_from_network", srv), fmt.Sprintf(`{"network":%d}`, nw)
	case 8:
		return "POST", fmt.Sprintf("/v1/servers/%d/actions/change_alias_ips", srv), fmt.Sprintf(`{"network":%d,"alias_ips":["10.0.0.%d"]}`, nw, 2+rng.IntN(250))
	case 9:
		return "POST", "/v1/load_balancers", fmt.Sprintf(`{"name":%q,"load_balancer_type":"lb11","location":"fsn1","network":%d}`, name, nw)
	case 10:
		return "POST", fmt.Sprintf("/v1/load_balancers/%d/actions/attach_to_network", lb), fmt.Sprintf(`{"network":%d}`, nw)
	default:
		return "POST", fmt.Sprintf("/v1/servers/%d/actions/poweroff", srv), ""
	}
}

// TestDeletedNetworkStaysGone: a network deleted while a new server's
// attachment to it runs is not brought back into the server's private_net
// when the attachment ends, neither after another action's failure has
// rebuilt the network index nor in a world imported meanwhile.
func TestDeletedNetworkStaysGone(t *testing.T) {
	clock := newClock()
	fc := New(Options{Now: clock.Now, ActionDuration: time.Second})
	id := func(method, path, body, kind string) int64 {
		rec := answer(t, fc, method, path, strings.NewReader(body))
		if rec.Code >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
		}
		var out map[string]json.RawMessage
		var created struct{ ID int64 }
		if kind != "" && (json.Unmarshal(rec.Body.Bytes(), &out) != nil || json.Unmarshal(out[kind], &created) != nil) {
			t.Fatalf("%s %s: %s", method, path, rec.Body)
		}
		return created.ID
	}
	nw := id("POST", "/v1/networks", `{"name":"n","ip_range":"10.0.0.0/16","subnets":[{"type":"cloud","ip_range":"10.0.0.0/24","network_zone":"eu-central"}]}`, "network")
	other := id("POST", "/v1/servers", `{"name":"other","server_type":"cx23","image":"ubuntu-24.04","location":"fsn1"}`, "server")
	clock.Advance(2 * time.Second)
	if _, err := fc.AddActionFault(ActionFault{Command: "attach_to_network", Delay: Duration(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if _, err := fc.AddActionFault(ActionFault{Command: "stop_server", ErrorCode: "action_failed", ErrorMessage: "no"}); err != nil {
		t.Fatal(err)
	}
	id("POST", "/v1/servers", fmt.Sprintf(`{"name":"new","server_type":"cx23","image":"ubuntu-24.04","location":"fsn1","networks":[%d]}`, nw), "server")
	id("DELETE", fmt.Sprintf("/v1/networks/%d", nw), "", "")
	imported := New(Options{Now: clock.Now})
	if err := imported.Import([]byte(export(t, fc))); err != nil {
		t.Fatal(err)
	}
	id("POST", fmt.Sprintf("/v1/servers/%d/actions/poweroff", other), "", "") // fails in 1 s, rebuilding the index
	clock.Advance(2 * time.Second)
	answer(t, fc, "GET", "/v1/servers", nil) // the failure ends
	clock.Advance(2 * time.Minute)           // then the attachment
	for name, w := range map[string]*Server{"the world": fc, "the world imported": imported} {
		if err := New(Options{}).Import([]byte(export(t, w))); err != nil {
			t.Errorf("%s does not load again: %v", name, err)
		}
	}
}
