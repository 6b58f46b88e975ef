package fakecloud

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// txWorld is hostileWorld on a clock the test moves, with an uploaded
// certificate and an https service that uses it.
func txWorld(t testing.TB) (*Server, *fakecloudtest.Clock) {
	t.Helper()
	clock := newClock()
	opts := hostileOptions("")
	opts.Now = clock.Now
	fc := New(opts)
	if err := fc.Seed(hostileSeedWorld(t)); err != nil {
		t.Fatal(err)
	}
	return fc, clock
}

// txDo sends one request in process from loopback (answerFrom) and
// returns its status and body.
func txDo(t testing.TB, fc *Server, method, path, body string) (int, []byte) {
	t.Helper()
	rec := answerFrom(t, fc, loopbackClient, method, path, strings.NewReader(body))
	return rec.Code, rec.Body.Bytes()
}

// mustDo is txDo that fails the test unless the answer has the status.
func mustDo(t testing.TB, fc *Server, want int, method, path, body string) []byte {
	t.Helper()
	code, out := txDo(t, fc, method, path, body)
	if code != want {
		t.Fatalf("%s %s: %d %.400s, want %d", method, path, code, out, want)
	}
	return out
}

// failNext makes the next action of command fail after delay.
func failNext(t testing.TB, fc *Server, command string, delay time.Duration) {
	t.Helper()
	mustDo(t, fc, http.StatusCreated, "POST", "/_fakecloud/action-faults",
		fmt.Sprintf(`{"command":%q,"error_code":"action_failed","error_message":"injected","count":1,"delay":%q}`, command, delay))
}

// settleAll moves the clock past every running action and lets them end.
func settleAll(t testing.TB, fc *Server, clock *fakecloudtest.Clock) {
	clock.Advance(time.Hour)
	txDo(t, fc, "GET", "/v1/actions?status=running", "")
}

// worldOf decodes an export, failing the test if it breaks checkWorld.
func worldOf(t testing.TB, fc *Server) world.Snapshot {
	t.Helper()
	var st world.Snapshot
	if err := json.Unmarshal([]byte(export(t, fc)), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

func serverNamed(t testing.TB, st world.Snapshot, name string) *world.StoredServer {
	t.Helper()
	for _, s := range st.Servers {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no server %q", name)
	return nil
}

// A failing power-off undoes the status it changed, and only that: an
// address moved meanwhile by an event stays where the event put it.
func TestFailedActionKeepsAnotherChange(t *testing.T) {
	fc, clock := txWorld(t)
	cp := serverNamed(t, worldOf(t, fc), "control-plane-1")
	failNext(t, fc, "stop_server", time.Minute)
	mustDo(t, fc, http.StatusCreated, "POST", fmt.Sprintf("/v1/servers/%d/actions/poweroff", cp.ID), "")
	mustDo(t, fc, http.StatusNoContent, "POST", "/_fakecloud/events", fmt.Sprintf(`{"type":"set_server_ip","server":%d,"ip":"203.0.113.77"}`, cp.ID))
	mustDo(t, fc, http.StatusNoContent, "POST", "/_fakecloud/events", fmt.Sprintf(`{"type":"set_server_ip","server":%d,"network":%d,"ip":"10.0.0.50"}`, cp.ID, cp.PrivateNet[0].Network))
	settleAll(t, fc, clock)
	after := serverNamed(t, worldOf(t, fc), "control-plane-1")
	if after.Status != "running" {
		t.Errorf("status %q after the failed power-off, want running (undone)", after.Status)
	}
	if after.PublicNet.IPv4.IP != "203.0.113.77" || after.PrivateNet[0].IP != "10.0.0.50" {
		t.Errorf("addresses %s, %s after the failed power-off: the undo reversed the events' change", after.PublicNet.IPv4.IP, after.PrivateNet[0].IP)
	}
}

// A network deleted while an attached server's action runs: the failing
// action does not put the server back into the deleted network.
func TestFailedActionKeepsADeletedNetworkDeleted(t *testing.T) {
	fc, clock := txWorld(t)
	st := worldOf(t, fc)
	spare := st.Networks[1].ID
	bare := serverNamed(t, st, "bare-1")
	mustDo(t, fc, http.StatusCreated, "POST", fmt.Sprintf("/v1/servers/%d/actions/attach_to_network", bare.ID), fmt.Sprintf(`{"network":%d}`, spare))
	failNext(t, fc, "start_server", time.Minute)
	mustDo(t, fc, http.StatusCreated, "POST", fmt.Sprintf("/v1/servers/%d/actions/poweron", bare.ID), "")
	if code, body := txDo(t, fc, "DELETE", fmt.Sprintf("/v1/networks/%d", spare), ""); code != http.StatusNoContent && code != http.StatusLocked {
		t.Fatalf("delete network: %d %s, want 204 or locked", code, body)
	}
	settleAll(t, fc, clock)
	after := worldOf(t, fc) // checkWorld: no member of a missing network
	if s := serverNamed(t, after, "bare-1"); s.Status != "off" {
		t.Errorf("status %q after the failed power-on, want off", s.Status)
	}
}

// A certificate that a running update_service stops using is still in use
// until the action ends: deleting it is refused, so a failing action can
// put it back.
func TestCertificateHeldByRunningAction(t *testing.T) {
	fc, clock := txWorld(t)
	st := worldOf(t, fc)
	lb, cert := st.LoadBalancers[0].ID, st.Certificates[0].ID
	mustDo(t, fc, http.StatusCreated, "POST", fmt.Sprintf("/v1/load_balancers/%d/actions/add_service", lb),
		fmt.Sprintf(`{"protocol":"https","listen_port":443,"destination_port":80,"http":{"certificates":[%d]}}`, cert))
	settleAll(t, fc, clock)
	failNext(t, fc, "update_service", time.Minute)
	mustDo(t, fc, http.StatusCreated, "POST", fmt.Sprintf("/v1/load_balancers/%d/actions/update_service", lb),
		`{"listen_port":443,"protocol":"http","http":{"certificates":[]}}`)
	code, body := txDo(t, fc, "DELETE", fmt.Sprintf("/v1/certificates/%d", cert), "")
	if !containsCode(body, "resource_in_use") {
		t.Errorf("delete a certificate a running action may restore: %d %s, want resource_in_use", code, body)
	}
	settleAll(t, fc, clock)
	after := worldOf(t, fc) // checkWorld: services name existing certificates
	for _, svc := range after.LoadBalancers[0].Services {
		if svc.ListenPort == 443 && (svc.Protocol != "https" || len(svc.HTTP.Certificates) != 1) {
			t.Errorf("service 443 after the failed update: %s with %v, want https with the certificate (undone)", svc.Protocol, svc.HTTP.Certificates)
		}
	}
}

// TestActionInterleavings runs random sequences of actions, some failing
// after a random delay, with events, deletes and clock steps between
// them. After each, once every action has ended, the world keeps its
// invariants and its export imports into a new fakecloud. A failure names
// the seed and the steps.
func TestActionInterleavings(t *testing.T) {
	runs, steps := 60, 120
	if testing.Short() {
		runs = 15
	}
	commands := []string{"stop_server", "start_server", "attach_to_network", "detach_from_network", "change_server_type",
		"change_dns_ptr", "add_subnet", "delete_subnet", "add_route", "delete_route", "add_service", "update_service",
		"delete_service", "add_target", "remove_target", "assign_primary_ip", "unassign_primary_ip"}
	var changed, failing int
	for seed := range uint64(runs) {
		rng := rand.New(rand.NewPCG(seed, 7))
		fc, clock := txWorld(t)
		pool := newLivePool(t, fc)
		st := worldOf(t, fc)
		cert, pip := st.Certificates[0].ID, st.PrimaryIPs[0].ID
		var log []string
		for n := range steps {
			var method, path, body string
			switch k := rng.IntN(20); {
			case k < 3:
				cmd, d := commands[rng.IntN(len(commands))], time.Duration(rng.IntN(30))*time.Second
				failNext(t, fc, cmd, d)
				log = append(log, fmt.Sprintf("the next %s fails after %s", cmd, d))
				failing++
				continue
			case k < 6:
				d := time.Duration(rng.IntN(20)) * time.Second
				clock.Advance(d)
				log = append(log, "wait "+d.String())
				continue
			case k < 12:
				c := pool.valid(rng.IntN(16), rng.IntN(500))
				method, path, body = c.method, c.path, string(c.body)
			default:
				method, path, body = txExtra(rng, pool, cert, pip)
			}
			code, out := txDo(t, fc, method, path, body)
			if code >= 500 {
				t.Fatalf("seed %d step %d: %s %s %s: %d %s", seed, n, method, path, body, code, out)
			}
			if code < 300 && method != "GET" {
				changed++
				pool.note(out)
			}
			log = append(log, fmt.Sprintf("%s %s %s → %d", method, path, body, code))
		}
		settleAll(t, fc, clock)
		data, err := fc.Export()
		if err != nil {
			t.Fatalf("seed %d: export: %v", seed, err)
		}
		var end world.Snapshot
		if err := json.Unmarshal(data, &end); err != nil {
			t.Fatal(err)
		}
		if errs := checkWorld(&end); len(errs) > 0 {
			t.Fatalf("seed %d: the world breaks its invariants: %v\nsteps:\n%s", seed, errs, strings.Join(log, "\n"))
		}
		if err := New(hostileOptions("")).Import(data); err != nil {
			t.Fatalf("seed %d: the export does not import: %v\nsteps:\n%s", seed, err, strings.Join(log, "\n"))
		}
	}
	t.Logf("%d runs of %d steps: %d accepted changes, %d injected action failures", runs, steps, changed, failing)
	if changed < runs*10 {
		t.Errorf("only %d accepted changes: the runs tested little", changed)
	}
}

// txExtra is a request livePool does not make: power, type, reverse DNS,
// https services with the certificate, the certificate's deletion and
// primary IP moves.
func txExtra(rng *rand.Rand, pool *livePool, cert, pip int64) (method, path, body string) {
	srv, _, lb := pool.pick(rng.IntN(6))
	port := 440 + rng.IntN(4)
	cases := [][3]string{
		{"POST", fmt.Sprintf("/v1/servers/%d/actions/poweroff", srv), ""},
		{"POST", fmt.Sprintf("/v1/servers/%d/actions/poweron", srv), ""},
		{"POST", fmt.Sprintf("/v1/servers/%d/actions/change_type", srv), `{"server_type":"cx33","upgrade_disk":false}`},
		{"POST", fmt.Sprintf("/v1/servers/%d/actions/change_dns_ptr", srv), fmt.Sprintf(`{"ip":"%s","dns_ptr":"n%d.example.com"}`, "203.0.113.1", rng.IntN(9))},
		{"POST", fmt.Sprintf("/v1/load_balancers/%d/actions/add_service", lb),
			fmt.Sprintf(`{"protocol":"https","listen_port":%d,"destination_port":80,"http":{"certificates":[%d]}}`, port, cert)},
		{"POST", fmt.Sprintf("/v1/load_balancers/%d/actions/update_service", lb), fmt.Sprintf(`{"listen_port":%d,"protocol":"http","http":{"certificates":[]}}`, port)},
		{"POST", fmt.Sprintf("/v1/load_balancers/%d/actions/update_service", lb), fmt.Sprintf(`{"listen_port":%d,"protocol":"https","http":{"certificates":[%d]}}`, port, cert)},
		{"DELETE", fmt.Sprintf("/v1/certificates/%d", cert), ""},
		{"POST", fmt.Sprintf("/v1/primary_ips/%d/actions/assign", pip), fmt.Sprintf(`{"assignee_id":%d,"assignee_type":"server"}`, srv)},
		{"POST", fmt.Sprintf("/v1/primary_ips/%d/actions/unassign", pip), ""},
		{"POST", "/_fakecloud/events", fmt.Sprintf(`{"type":"power_on_server","server":%d}`, srv)},
	}
	c := cases[rng.IntN(len(cases))]
	return c[0], c[1], c[2]
}

// A subnet whose add_subnet is running is not usable yet: attaching a
// server into it waits (conflict), so the failing action can take it back.
func TestSubnetOfRunningActionIsNotUsed(t *testing.T) {
	fc, clock := txWorld(t)
	st := worldOf(t, fc)
	cluster, bare := st.Networks[0].ID, serverNamed(t, st, "bare-1")
	failNext(t, fc, "add_subnet", time.Minute)
	mustDo(t, fc, http.StatusCreated, "POST", fmt.Sprintf("/v1/networks/%d/actions/add_subnet", cluster), `{"type":"cloud","ip_range":"10.0.50.0/24","network_zone":"eu-central"}`)
	code, body := txDo(t, fc, "POST", fmt.Sprintf("/v1/servers/%d/actions/attach_to_network", bare.ID), fmt.Sprintf(`{"network":%d,"ip":"10.0.50.5"}`, cluster))
	if code < 400 {
		t.Errorf("attach into the subnet of a running add_subnet: %d %s, want refused", code, body)
	}
	settleAll(t, fc, clock)
	worldOf(t, fc) // checkWorld: every private IP lies in a subnet
}
