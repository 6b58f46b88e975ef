package doctor

import (
	"encoding/json"
	"testing"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// TestTargetHealth: doctor names the Nodes whose targets the API reports
// unhealthy, with the API's reason: a warning while another is healthy, a
// failure when none is; it reads them from its one load balancer listing.
func TestTargetHealth(t *testing.T) {
	for _, tc := range []struct {
		name      string
		unhealthy []string
		status    Status
		msg       string
	}{
		{"all healthy", nil, OK, "load balancer web: 2 of 2 targets healthy on every port (AllTargetsHealthy)"},
		{"one unhealthy", []string{"node-2"}, Warn, "1 of 2 targets unhealthy: node-2 (port 80: unspecified) (SomeTargetsUnhealthy)"},
		{"none healthy", []string{"node-1", "node-2"}, Fail, "no healthy target; 2 of 2 unhealthy: node-1 (port 80: unspecified), node-2 (port 80: unspecified)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture()
			f.world.LoadBalancers[0].Services = []json.RawMessage{json.RawMessage(`{"protocol":"tcp","listen_port":80,"destination_port":30080}`)}
			f.start(t)
			for _, name := range tc.unhealthy {
				if err := f.fc.Apply(fakecloud.Event{Type: "set_target_health", LoadBalancerName: "web", ServerName: name, Health: "unhealthy"}); err != nil {
					t.Fatal(err)
				}
			}
			r := f.run(t)
			if !has(r, "target-health", tc.status, "service/default/web", tc.msg) {
				t.Errorf("no %s target-health finding with %q:\n%s", tc.status, tc.msg, dump(r))
			}
			if n := f.fc.Requests("GET", "/load_balancers"); n != 1 {
				t.Errorf("%d load balancer listings, want 1", n)
			}
		})
	}
}
