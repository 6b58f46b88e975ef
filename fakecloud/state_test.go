package fakecloud

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// TestSnapshotRoundTrip: export, reset, import gives an identical world,
// running actions included, and the world goes on as the original would.
func TestSnapshotRoundTrip(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{Now: clock.Now, ActionDuration: 10 * time.Second})
	ctx := t.Context()
	w, err := LoadWorld("../testdata/worlds/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.fc.Seed(w); err != nil {
		t.Fatal(err)
	}
	srv, _, _ := f.client.Server.GetByName(ctx, "worker-2")
	running, _, err := f.client.Server.Poweron(ctx, srv)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.fc.Apply(Event{Type: "lock", Resource: "server", ID: srv.ID, For: Duration(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	before, err := f.fc.Export()
	if err != nil {
		t.Fatal(err)
	}
	f.fc.Reset()
	if all, _ := f.client.Server.All(ctx); len(all) != 0 {
		t.Fatalf("%d servers after reset", len(all))
	}
	if err := f.fc.Import(before); err != nil {
		t.Fatal(err)
	}
	after, _ := f.fc.Export()
	var a, b map[string]any
	_ = json.Unmarshal(before, &a)
	_ = json.Unmarshal(after, &b)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("world after import (-before +after):\n%s", diff)
	}
	// The running action finishes with its effect, and new IDs continue the
	// same sequence as the original world's would.
	clock.Advance(10 * time.Second)
	got, _, _ := f.client.Action.GetByID(ctx, running.ID)
	s, _, _ := f.client.Server.GetByID(ctx, srv.ID)
	if got.Status != hcloud.ActionStatusSuccess || s.Status != hcloud.ServerStatusRunning {
		t.Errorf("after import: action %s, server %s", got.Status, s.Status)
	}

	twin := New(Options{Now: clock.Now, ActionDuration: 10 * time.Second})
	if err := twin.Import(before); err != nil {
		t.Fatal(err)
	}
	n1 := newNetwork(t, f, "later", "10.1.0.0/16", "")
	var st world.Snapshot
	send(t, twin, "POST", "/v1/networks", []byte(`{"name":"later","ip_range":"10.1.0.0/16"}`))
	data, _ := twin.Export()
	_ = json.Unmarshal(data, &st)
	if st.Networks[len(st.Networks)-1].ID != n1.ID {
		t.Errorf("the imported twin handed out ID %d, the original %d", st.Networks[len(st.Networks)-1].ID, n1.ID)
	}
}

func TestImportRefusesMalformedSnapshots(t *testing.T) {
	fc, _ := seededServer(t)
	good, _ := fc.Export()
	tests := []struct {
		name, from, to, field string
	}{
		{"unknown field", `"version": 2`, `"version": 2, "colour": "red"`, "colour"},
		{"wrong version", `"version": 2`, `"version": 7`, "version"},
		{"duplicate id", `"id": 100003`, `"id": 100002`, "servers[1].id"},
		{"bad status", `"status": "running"`, `"status": "sleeping"`, "servers[0].status"},
		{"unknown server type", `"name": "cx23"`, `"name": "cx999"`, "server_type.name"},
		{"primary IP name twice", `"name": "primary_ip-600005"`, `"name": "primary_ip-600002"`, "primary_ips[1].name"},
		{"not json", `{`, `[`, "snapshot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := strings.Replace(string(good), tt.from, tt.to, 1)
			if bad == string(good) {
				t.Fatalf("test does not change the snapshot: %q", tt.from)
			}
			err := fc.Import([]byte(bad))
			if err == nil || !strings.Contains(err.Error(), tt.field) {
				t.Fatalf("got %v, want an error naming %s", err, tt.field)
			}
			now, _ := fc.Export()
			if string(now) != string(good) {
				t.Fatal("a refused snapshot changed the world")
			}
		})
	}
}

// TestSeedIgnoresActionFaults: action faults are for API clients: a seed
// is neither refused by one nor spends it, and the next API action meets it.
func TestSeedIgnoresActionFaults(t *testing.T) {
	f := newFixture(t, Options{})
	if _, err := f.fc.AddActionFault(ActionFault{Command: "*", Count: 1, ErrorCode: "action_failed"}); err != nil {
		t.Fatal(err)
	}
	if err := f.fc.Seed(World{Servers: []SeedServer{{Name: "seeded"}}}); err != nil {
		t.Fatalf("a seed under an action fault: %v", err)
	}
	s, _, err := f.client.Server.GetByName(t.Context(), "seeded")
	if err != nil || s == nil || s.Status != hcloud.ServerStatusRunning {
		t.Fatalf("seeded server: %+v %v, want running", s, err)
	}
	if _, actions := f.fc.Faults(); len(actions) != 1 || actions[0].Hits != 0 {
		t.Errorf("after the seed the action fault is %+v, want pending with no hits", actions)
	}
	a, _, err := f.client.Server.Poweroff(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.client.Action.WaitFor(t.Context(), a); err == nil {
		t.Error("the first API action after the seed did not meet the fault")
	}
}
