package adminclient_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/adminclient"
)

// smallWorld is testdata/worlds/small.yaml: control-plane-1 and worker-1
// running, worker-2 off.
func smallWorld(t *testing.T) ([]byte, fakecloud.World) {
	t.Helper()
	doc, err := os.ReadFile("../../testdata/worlds/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := fakecloud.ParseWorld(doc)
	if err != nil {
		t.Fatal(err)
	}
	return doc, w
}

// startSmall is start with fakecloud seeded with smallWorld.
func startSmall(t *testing.T) (*fakecloud.Server, *adminclient.Client) {
	t.Helper()
	fc, c := start(t, fakecloud.Options{})
	_, world := smallWorld(t)
	if err := fc.Seed(world); err != nil {
		t.Fatal(err)
	}
	return fc, c
}

// servers reads the status of each server from fakecloud's own export.
func servers(t *testing.T, fc *fakecloud.Server) map[string]string {
	t.Helper()
	data, err := fc.Export()
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Servers []struct{ Name, Status string }
	}
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range st.Servers {
		out[s.Name] = s.Status
	}
	return out
}

func TestSeed(t *testing.T) {
	want := map[string]string{"control-plane-1": "running", "worker-1": "running", "worker-2": "off"}
	doc, world := smallWorld(t)
	tests := []struct {
		name string
		seed func(c *adminclient.Client) error
	}{
		{"typed", func(c *adminclient.Client) error { return c.Seed(t.Context(), world) }},
		{"document", func(c *adminclient.Client) error { return c.SeedDoc(t.Context(), doc) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc, c := start(t, fakecloud.Options{})
			if err := tt.seed(c); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, servers(t, fc)); diff != "" {
				t.Errorf("servers (-want +got):\n%s", diff)
			}
		})
	}
	_, c := start(t, fakecloud.Options{})
	if err := c.SeedDoc(t.Context(), []byte("servers: [{name: a, server_type: cx999}]")); !adminclient.IsError(err, "invalid_input") {
		t.Errorf("an unknown server type: %v, want invalid_input", err)
	}
}

func TestApply(t *testing.T) {
	fc, c := startSmall(t)
	ctx := t.Context()
	if err := c.Apply(ctx, fakecloud.Event{Type: "power_off_server", ServerName: "worker-1"}); err != nil {
		t.Fatal(err)
	}
	if err := c.ApplyDoc(ctx, []byte("{type: power_on_server, server_name: worker-2}")); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"control-plane-1": "running", "worker-1": "off", "worker-2": "running"}
	if diff := cmp.Diff(want, servers(t, fc)); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	if err := c.Apply(ctx, fakecloud.Event{Type: "delete_server", ServerName: "nobody"}); !adminclient.IsError(err, "invalid_input") {
		t.Errorf("an event for an unknown server: %v, want invalid_input", err)
	}
	if err := c.ApplyDoc(ctx, []byte("{type: explode}")); !adminclient.IsError(err, "invalid_input") {
		t.Errorf("an unknown event: %v, want invalid_input", err)
	}
}

func TestLoadScenario(t *testing.T) {
	fc, c := start(t, fakecloud.Options{})
	ctx := t.Context()
	typed := fakecloud.Scenario{Description: "500s", Steps: []fakecloud.Step{{Fault: &fakecloud.Rule{Path: "/**", Status: 500}}}}
	if err := c.LoadScenario(ctx, typed); err != nil {
		t.Fatal(err)
	}
	doc := []byte("steps:\n  - action_fault: {command: add_target, error_code: server_error}\n")
	if err := c.LoadScenarioDoc(ctx, doc); err != nil {
		t.Fatal(err)
	}
	if rules, actions := fc.Faults(); len(rules) != 1 || rules[0].Status != 500 || len(actions) != 1 || actions[0].Command != "add_target" {
		t.Errorf("faults after the scenarios: %+v %+v", rules, actions)
	}
	if err := c.LoadScenario(ctx, fakecloud.Scenario{}); !adminclient.IsError(err, "invalid_input") {
		t.Errorf("a scenario without steps: %v, want invalid_input", err)
	}
}

func TestReset(t *testing.T) {
	fc, c := startSmall(t)
	ctx := t.Context()
	if err := c.Reset(ctx, adminclient.ResetEmpty); err != nil {
		t.Fatal(err)
	}
	if got := servers(t, fc); len(got) != 0 {
		t.Errorf("servers after reset to empty: %v", got)
	}
	if err := c.Reset(ctx, adminclient.ResetSeed); err != nil {
		t.Fatal(err)
	}
	if got := servers(t, fc); len(got) != 3 {
		t.Errorf("servers after reset to the seed: %v", got)
	}
	if err := c.Reset(ctx, "yesterday"); !adminclient.IsError(err, "invalid_input") {
		t.Errorf("reset to yesterday: %v, want invalid_input", err)
	}
}

func TestExportImport(t *testing.T) {
	fc, c := startSmall(t)
	ctx := t.Context()
	snapshot, err := c.Export(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want, err := fc.Export()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(snapshot)); diff != "" {
		t.Errorf("Export (-fakecloud +client):\n%s", diff)
	}
	fc.Reset()
	if err := c.Import(ctx, snapshot); err != nil {
		t.Fatal(err)
	}
	if got, _ := fc.Export(); string(got) != string(snapshot) {
		t.Error("the world after Import is not the snapshot")
	}
	if err := c.Import(ctx, []byte(`{"version": 99}`)); !adminclient.IsError(err, "invalid_input") {
		t.Errorf("a snapshot of another version: %v, want invalid_input", err)
	}
}

// TestSetRealism: the realism is set, with its defaults, and a bad one is
// refused with the API's envelope, changing nothing.
func TestSetRealism(t *testing.T) {
	fc, c := start(t, fakecloud.Options{})
	got, err := c.SetRealism(t.Context(), fakecloud.Realism{Mode: fakecloud.RealismPessimistic})
	if err != nil || got.ActionRetention != fakecloud.Duration(fakecloud.DefaultActionRetention) || fc.Realism().Mode != fakecloud.RealismPessimistic {
		t.Fatalf("pessimistic: %+v, %v; fakecloud has %+v", got, err, fc.Realism())
	}
	if _, err := c.SetRealism(t.Context(), fakecloud.Realism{Mode: "gloomy"}); err == nil || fc.Realism().Mode != fakecloud.RealismPessimistic {
		t.Errorf("a bad mode: %v; fakecloud has %+v", err, fc.Realism())
	}
}

// TestFidelity: the admin API says which API fakecloud simulates, the
// same as the package does.
func TestFidelity(t *testing.T) {
	_, c := start(t, fakecloud.Options{})
	got, err := c.Fidelity(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(fakecloud.SimulatedAPI(), got); d != "" || got.Changelog == "" || got.Description == "" {
		t.Errorf("GET /_fakecloud/fidelity (-want +got):\n%s", d)
	}
}
