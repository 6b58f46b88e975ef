package ccm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestWantedOfMapsServerLabels(t *testing.T) {
	all := ServerLabelsConfig{Labels: true, Taints: true, Verbatim: []string{"hcloud/node-group", "role"}}
	long := strings.Repeat("k", 63) // the longest name a server label key has
	for _, tc := range []struct {
		name       string
		cfg        ServerLabelsConfig
		server     map[string]string
		wantLabels map[string]string
		wantTaints []corev1.Taint
		problem    string
	}{
		{name: "prefixed and verbatim", cfg: all,
			server:     map[string]string{"env": "prod", "hcloud/node-group": "pool1", "role": "worker", "kops.k8s.io/instance-group": "nodes", long: "x"},
			wantLabels: map[string]string{ServerLabelPrefix + "env": "prod", "hcloud/node-group": "pool1", "role": "worker", ServerLabelPrefix + "role": "worker", ServerLabelPrefix + long: "x"}},
		{name: "verbatim only", cfg: ServerLabelsConfig{Verbatim: []string{"hcloud/node-group"}},
			server:     map[string]string{"env": "prod", "hcloud/node-group": "pool1", "taint.noschedule/gpu": "nvidia"},
			wantLabels: map[string]string{"hcloud/node-group": "pool1"}},
		{name: "taints, each effect", cfg: all,
			server: map[string]string{"taint.noschedule/gpu": "nvidia", "taint.noexecute/maintenance": "", "taint.prefernoschedule/spot": "true"},
			wantTaints: []corev1.Taint{{Key: ServerTaintPrefix + "gpu", Value: "nvidia", Effect: corev1.TaintEffectNoSchedule},
				{Key: ServerTaintPrefix + "maintenance", Effect: corev1.TaintEffectNoExecute},
				{Key: ServerTaintPrefix + "spot", Value: "true", Effect: corev1.TaintEffectPreferNoSchedule}}},
		{name: "taints off: a taint's label is no label either", cfg: ServerLabelsConfig{Labels: true},
			server: map[string]string{"taint.noschedule/gpu": "nvidia"}},
		{name: "a domain beginning with taint. is no taint", cfg: all,
			server: map[string]string{"taint.example.com/gpu": "x"}},
		{name: "an unknown effect", cfg: all,
			server:  map[string]string{"taint.sometimes/gpu": "nvidia", "env": "prod"},
			problem: "server label taint.sometimes/gpu names no taint effect: want taint.noschedule/, taint.prefernoschedule/ or taint.noexecute/"},
		{name: "a value Kubernetes refuses (the API documents its rules, it does not promise them)", cfg: all,
			server:  map[string]string{"env": "prod stage"},
			problem: "server label env=prod stage makes no Node label " + ServerLabelPrefix + "env"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := wantedOf(tc.server, tc.cfg)
			if tc.problem != "" {
				if len(w.problems) != 1 || !strings.Contains(w.problems[0], tc.problem) {
					t.Fatalf("problems %q, want one with %q", w.problems, tc.problem)
				}
				return
			}
			if len(w.problems) > 0 {
				t.Fatalf("problems %q", w.problems)
			}
			if tc.wantLabels == nil {
				tc.wantLabels = map[string]string{}
			}
			if d := cmp.Diff(tc.wantLabels, w.labels); d != "" {
				t.Errorf("labels (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantTaints, w.taints); d != "" {
				t.Errorf("taints (-want +got):\n%s", d)
			}
		})
	}
}

// node is a Node with labels, taints and the records.
func labelledNode(labels map[string]string, taints []corev1.Taint, records ...string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: labels, Annotations: map[string]string{}}, Spec: corev1.NodeSpec{Taints: taints}}
	if len(records) > 0 && records[0] != "" {
		n.Annotations[AnnotationManagedLabels] = records[0]
	}
	if len(records) > 1 && records[1] != "" {
		n.Annotations[AnnotationManagedTaints] = records[1]
	}
	return n
}

func TestPlanTouchesOnlyWhatItWrote(t *testing.T) {
	gpu := corev1.Taint{Key: ServerTaintPrefix + "gpu", Value: "nvidia", Effect: corev1.TaintEffectNoSchedule}
	theirs := corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule}
	for _, tc := range []struct {
		name          string
		node          *corev1.Node
		want          wanted
		patch         string // the merge patch, "" for none
		conflicts     int
		recordLabels  string
		recordsTaints string
	}{
		{name: "new labels and a taint are written and recorded",
			node:  labelledNode(map[string]string{"kubernetes.io/hostname": "n"}, []corev1.Taint{theirs}),
			want:  wanted{labels: map[string]string{"hcloud/node-group": "pool1"}, taints: []corev1.Taint{gpu}},
			patch: `{"metadata":{"annotations":{"hcloud.hetzner.cloud/managed-labels":"hcloud/node-group","hcloud.hetzner.cloud/managed-taints":"taint.hcloud.hetzner.cloud/gpu:NoSchedule"},"labels":{"hcloud/node-group":"pool1"}},"spec":{"taints":[{"key":"dedicated","value":"db","effect":"NoSchedule"},{"key":"taint.hcloud.hetzner.cloud/gpu","value":"nvidia","effect":"NoSchedule"}]}}`},
		{name: "in step: nothing to send",
			node: labelledNode(map[string]string{"hcloud/node-group": "pool1"}, []corev1.Taint{theirs, gpu}, "hcloud/node-group", taintID(gpu)),
			want: wanted{labels: map[string]string{"hcloud/node-group": "pool1"}, taints: []corev1.Taint{gpu}}},
		{name: "a removed server label removes what the CCM wrote, and only that",
			node:  labelledNode(map[string]string{"hcloud/node-group": "pool1", "team": "a"}, []corev1.Taint{gpu, theirs}, "hcloud/node-group", taintID(gpu)),
			want:  wanted{labels: map[string]string{}},
			patch: `{"metadata":{"annotations":{"hcloud.hetzner.cloud/managed-labels":null,"hcloud.hetzner.cloud/managed-taints":null},"labels":{"hcloud/node-group":null}},"spec":{"taints":[{"key":"dedicated","value":"db","effect":"NoSchedule"}]}}`},
		{name: "a changed value is written",
			node:  labelledNode(map[string]string{"hcloud/node-group": "pool1"}, nil, "hcloud/node-group"),
			want:  wanted{labels: map[string]string{"hcloud/node-group": "pool2"}},
			patch: `{"metadata":{"labels":{"hcloud/node-group":"pool2"}}}`},
		{name: "a label the CCM did not write is left, and named when it differs",
			node:      labelledNode(map[string]string{"hcloud/node-group": "mine", "role": "worker"}, []corev1.Taint{{Key: gpu.Key, Value: "amd", Effect: gpu.Effect}}),
			want:      wanted{labels: map[string]string{"hcloud/node-group": "pool1", "role": "worker"}, taints: []corev1.Taint{gpu}},
			conflicts: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := plan(tc.node, tc.want)
			if len(p.conflicts) != tc.conflicts {
				t.Errorf("conflicts %q, want %d", p.conflicts, tc.conflicts)
			}
			if !p.changes() {
				if tc.patch != "" {
					t.Fatalf("no change, want %s", tc.patch)
				}
				return
			}
			b, err := p.mergePatch(tc.node)
			if err != nil {
				t.Fatal(err)
			}
			if tc.patch == "" {
				t.Fatalf("patch %s, want none", b)
			}
			var got, want any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tc.patch), &want); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("patch (-want +got):\n%s", d)
			}
		})
	}
}

func TestVerbatimKeysRefused(t *testing.T) {
	for key, why := range map[string]string{
		"kubernetes.io/hostname":             "reserves",
		"topology.kubernetes.io/zone":        "reserves",
		"instance.hetzner.cloud/provided-by": "CCM's own",
		"label.hcloud.hetzner.cloud/env":     "CCM's own",
		"taint.noschedule/gpu":               "taint",
		"not a key":                          "not a label key",
	} {
		if got := verbatimRefused(key); !strings.Contains(got, why) {
			t.Errorf("%s: %q, want %q", key, got, why)
		}
	}
	for _, key := range []string{"hcloud/node-group", "role", "node-role.kubernetes.io/worker", "example.com/pool"} {
		if got := verbatimRefused(key); got != "" {
			t.Errorf("%s refused: %s", key, got)
		}
	}
}

func TestServerLabelsSettings(t *testing.T) {
	load := func(env map[string]string) (Config, error) {
		env["HCLOUD_TOKEN"] = strings.Repeat("a", 64)
		return LoadConfig(func(k string) string { return env[k] }, nil)
	}
	cfg, err := load(map[string]string{})
	if err != nil || cfg.ServerLabels.On() {
		t.Errorf("by default: %+v %v, want off", cfg.ServerLabels, err)
	}
	cfg, err = load(map[string]string{"HCLOUD_INSTANCES_LABELS_ENABLED": "true", "HCLOUD_INSTANCES_TAINTS_ENABLED": "true",
		"HCLOUD_INSTANCES_LABELS_VERBATIM": " hcloud/node-group, role,hcloud/node-group"})
	want := ServerLabelsConfig{Labels: true, Taints: true, Verbatim: []string{"hcloud/node-group", "role"}}
	if err != nil || !cmp.Equal(cfg.ServerLabels, want) {
		t.Errorf("%+v %v, want %+v", cfg.ServerLabels, err, want)
	}
	_, err = load(map[string]string{"HCLOUD_INSTANCES_LABELS_VERBATIM": "hcloud/node-group,kubernetes.io/hostname", "HCLOUD_INSTANCES_TAINTS_ENABLED": "maybe"})
	for _, part := range []string{`HCLOUD_INSTANCES_LABELS_VERBATIM: "kubernetes.io/hostname" is in a namespace Kubernetes reserves`, `HCLOUD_INSTANCES_TAINTS_ENABLED="maybe"`} {
		if err == nil || !strings.Contains(err.Error(), part) {
			t.Errorf("error %v, want %q", err, part)
		}
	}
}
