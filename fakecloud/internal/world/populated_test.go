package world

import (
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

// populated is a world with a network, three servers in it, a load
// balancer targeting them and the actions that made them, built through
// the typed operations alone.
func populated(t testing.TB) *State {
	t.Helper()
	clock := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	w := New(Config{Now: func() time.Time { return clock }, IDSeed: 7})
	labels := map[string]string{"role": "worker"}
	err := w.Replace(func(tx *Tx) error {
		n, err := tx.CreateNetwork(schema.NetworkCreateRequest{Name: "n", IPRange: "10.0.0.0/16",
			Subnets: []schema.NetworkSubnet{{Type: "cloud", IPRange: "10.0.0.0/24", NetworkZone: "eu-central"}}})
		if err != nil {
			return err
		}
		for _, name := range []string{"a", "b", "c"} {
			req := ServerCreateRequest{ServerCreateRequest: schema.ServerCreateRequest{Name: name, ServerType: schema.IDOrName{Name: "cx23"},
				Image: schema.IDOrName{Name: "ubuntu-24.04"}, Location: "fsn1", Labels: &labels, Networks: []int64{n.ID}}}
			if _, err := tx.CreateServer(req); err != nil {
				return err
			}
		}
		port, dest := 80, 30080
		lb := LoadBalancerCreateRequest{LoadBalancerCreateRequest: schema.LoadBalancerCreateRequest{Name: "lb",
			LoadBalancerType: schema.IDOrName{Name: "lb11"}, Location: hcloudString("fsn1"), Network: &n.ID},
			Services: []ServiceSpec{{Protocol: hcloudString("tcp"), ListenPort: &port, DestinationPort: &dest}},
			Targets: []TargetSpec{{Type: "label_selector", LabelSelector: &struct {
				Selector string `json:"selector"`
			}{"role=worker"}}}}
		if _, err := tx.CreateLoadBalancer(lb); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, lbs := len(w.w.Servers.All()), len(w.w.LoadBalancers.All()); n != 3 || lbs != 1 {
		t.Fatalf("populated %d servers and %d load balancers, want 3 and 1", n, lbs)
	}
	return w
}

func hcloudString(s string) *string { return &s }
