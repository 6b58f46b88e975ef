package adminclient_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/adminclient"
)

func TestFaults(t *testing.T) {
	fc, c := start(t, fakecloud.Options{})
	ctx := t.Context()
	rule, err := c.AddFault(ctx, fakecloud.Rule{Method: "GET", Path: "/servers", Status: 503, Count: 2, Latency: fakecloud.Duration(1e9)})
	if err != nil {
		t.Fatal(err)
	}
	fromDoc, err := c.AddFaultDoc(ctx, []byte("{path: /load_balancers/**, status: 500}"))
	if err != nil {
		t.Fatal(err)
	}
	af, err := c.AddActionFault(ctx, fakecloud.ActionFault{Command: "add_target", ErrorCode: "server_error"})
	if err != nil {
		t.Fatal(err)
	}
	afDoc, err := c.AddActionFaultDoc(ctx, []byte(`{"command": "*", "delay": "30s"}`))
	if err != nil {
		t.Fatal(err)
	}
	if rule.ID == 0 || rule.Status != 503 || fromDoc.Path != "/load_balancers/**" || af.ID == 0 || afDoc.Delay != fakecloud.Duration(30e9) {
		t.Errorf("added: %+v %+v %+v %+v", rule, fromDoc, af, afDoc)
	}

	rules, actions := fc.Faults()
	got, err := c.Faults(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := adminclient.Faults{Rules: rules, ActionFaults: actions}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Faults (-fakecloud +client):\n%s", diff)
	}
	if len(got.Rules) != 2 || len(got.ActionFaults) != 2 {
		t.Fatalf("faults: %+v", got)
	}

	if err := c.RemoveFault(ctx, rule.ID); err != nil {
		t.Fatal(err)
	}
	if rules, _ := fc.Faults(); len(rules) != 1 || rules[0].ID != fromDoc.ID {
		t.Errorf("after removing %d: %+v", rule.ID, rules)
	}
	if err := c.RemoveFault(ctx, rule.ID); !adminclient.IsError(err, "not_found") {
		t.Errorf("removing it again: %v, want not_found", err)
	}
	if err := c.ClearFaults(ctx); err != nil {
		t.Fatal(err)
	}
	if rules, actions := fc.Faults(); len(rules)+len(actions) != 0 {
		t.Errorf("after clearing: %+v %+v", rules, actions)
	}
}

func TestFaultsRefused(t *testing.T) {
	fc, c := start(t, fakecloud.Options{})
	ctx := t.Context()
	tests := []struct {
		name string
		add  func() error
	}{
		{"rule", func() error { _, err := c.AddFault(ctx, fakecloud.Rule{Path: "servers", Status: 200}); return err }},
		{"rule document with an unknown field", func() error { _, err := c.AddFaultDoc(ctx, []byte("{path: /x, colour: red}")); return err }},
		{"action fault", func() error {
			_, err := c.AddActionFault(ctx, fakecloud.ActionFault{Command: "add_target", ErrorCode: "nope"})
			return err
		}},
		{"action fault document", func() error { _, err := c.AddActionFaultDoc(ctx, []byte("not: [yaml")); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.add(); !adminclient.IsError(err, "invalid_input") {
				t.Errorf("got %v, want invalid_input", err)
			}
		})
	}
	if rules, actions := fc.Faults(); len(rules)+len(actions) != 0 {
		t.Errorf("refused faults were added: %+v %+v", rules, actions)
	}
}
