package doctor

import (
	"testing"

	cloudproviderapi "k8s.io/cloud-provider/api"

	"github.com/hcloudlab/hcloud-ccm/ccm"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// TestNodeLabelsAndOverlayFindings: doctor explains an overlay --node-ip
// it keeps, and what the server label sync makes of each Node.
func TestNodeLabelsAndOverlayFindings(t *testing.T) {
	for _, tt := range []struct {
		name   string
		world  func(*fixture)
		setup  func(*fixture)
		want   []want
		absent []want
	}{
		{name: "overlay --node-ip kept as InternalIP",
			setup: func(f *fixture) {
				f.env["HCLOUD_INSTANCES_INTERNAL_IP_CIDRS"] = "100.64.0.0/10"
				n := f.node("node-2")
				n.Annotations[cloudproviderapi.AnnotationAlphaProvidedIPAddr] = "100.64.0.9"
				n.Status.Addresses[2].Address = "100.64.0.9"
			},
			want:   []want{{"node-ip", OK, "node/node-2", "--node-ip 100.64.0.9 is kept as the Node's InternalIP: it lies in HCLOUD_INSTANCES_INTERNAL_IP_CIDRS (100.64.0.0/10)"}},
			absent: []want{{"node-ip", Fail, "node/node-2", ""}, {"node-ip", Warn, "node/node-2", ""}}},
		{name: "overlay --node-ip outside the CIDRs",
			setup: func(f *fixture) {
				f.env["HCLOUD_INSTANCES_INTERNAL_IP_CIDRS"] = "100.64.0.0/10"
				f.node("node-2").Annotations[cloudproviderapi.AnnotationAlphaProvidedIPAddr] = "192.168.9.9"
			},
			want: []want{{"node-ip", Fail, "node/node-2", "--node-ip 192.168.9.9 is not among"}}},
		{name: "server labels in step",
			world: func(f *fixture) { f.world.Servers[0].Labels = map[string]string{"hcloud/node-group": "pool1"} },
			setup: func(f *fixture) {
				f.env["HCLOUD_INSTANCES_LABELS_VERBATIM"] = "hcloud/node-group"
				n := f.node("node-1")
				n.Labels = map[string]string{"hcloud/node-group": "pool1"}
				n.Annotations[ccm.AnnotationManagedLabels] = "hcloud/node-group"
			},
			want: []want{{"server-labels", OK, "nodes", "2 Nodes carry their servers' labels"},
				{"staleness", OK, "inventory", "server labels reach the Nodes within 5m0s and the label sync's 10 s"}},
			absent: []want{{"server-labels", Warn, "node/node-1", ""}}},
		{name: "server label that makes no taint",
			world: func(f *fixture) { f.world.Servers[0].Labels = map[string]string{"taint.sometimes/gpu": "nvidia"} },
			setup: func(f *fixture) { f.env["HCLOUD_INSTANCES_TAINTS_ENABLED"] = "true" },
			want:  []want{{"server-labels", Warn, "node/node-1", "server label taint.sometimes/gpu names no taint effect"}}},
		{name: "a Node label the CCM did not write",
			world: func(f *fixture) { f.world.Servers[0].Labels = map[string]string{"hcloud/node-group": "pool1"} },
			setup: func(f *fixture) {
				f.env["HCLOUD_INSTANCES_LABELS_VERBATIM"] = "hcloud/node-group"
				f.node("node-1").Labels = map[string]string{"hcloud/node-group": "by-hand"}
			},
			want: []want{{"server-labels", Warn, "node/node-1", "hcloud/node-group=by-hand (the server's pool1)"}}},
		{name: "a label yet to be written",
			world: func(f *fixture) { f.world.Servers[0].Labels = map[string]string{"env": "prod"} },
			setup: func(f *fixture) { f.env["HCLOUD_INSTANCES_LABELS_ENABLED"] = "true" },
			want:  []want{{"server-labels", OK, "node/node-1", "the CCM writes them within the inventory's staleness bound"}}},
		{name: "sync off, labels it wrote left",
			setup: func(f *fixture) { f.node("node-1").Annotations[ccm.AnnotationManagedLabels] = "hcloud/node-group" },
			want:  []want{{"server-labels", Warn, "node/node-1", "the server label sync is off"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture()
			f.fcOpts = fakecloud.Options{IDSeed: 1}
			if tt.world != nil {
				tt.world(f)
			}
			f.start(t)
			tt.setup(f)
			r := f.run(t)
			for _, w := range tt.want {
				if !has(r, w.check, w.status, w.subject, w.message) {
					t.Errorf("no %s %s finding on %s with %q in:\n%s", w.status, w.check, w.subject, w.message, dump(r))
				}
			}
			for _, w := range tt.absent {
				if has(r, w.check, w.status, w.subject, w.message) {
					t.Errorf("a %s %s finding on %s in:\n%s", w.status, w.check, w.subject, dump(r))
				}
			}
		})
	}
}
