package loadbalancer

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

// NodeChanged is told of each update of a Node. The upstream service
// controller syncs Services on a Node's exclusion label and provider ID
// only, so a Node that enters or leaves a Service's node-selector would
// wait for an unrelated sync. A Service whose selection the change moves
// is synced again at once with the node set of its last sync, the Node
// replaced: one add_target or remove_target per load balancer. A newer
// sync from the controller, which carries the Node as it is, wins. So
// does a change of the Node's ExternalIPs that moves its targets
// (target_family.go), such as the IPv6 one the CCM writes after the
// controller synced.
func (l *Manager) NodeChanged(old, cur *corev1.Node) {
	if old == nil || cur == nil {
		return
	}
	relabelled := !maps.Equal(old.Labels, cur.Labels)
	readdressed := addressesChanged(old, cur)
	if !relabelled && !readdressed {
		return
	}
	var syncs []due
	l.mu.Lock()
	for uid, last := range l.last {
		o, err := annotation.Parse(last.svc, l.defaults)
		if err != nil {
			continue
		}
		selected := relabelled && o.NodeSelector != nil &&
			o.NodeSelector.Matches(labels.Set(old.Labels)) != o.NodeSelector.Matches(labels.Set(cur.Labels))
		if !selected && !(readdressed && l.targetsMoved(last.svc, o, old, cur)) {
			continue
		}
		i := slices.IndexFunc(last.nodes, func(n *corev1.Node) bool { return n.Name == cur.Name })
		if i < 0 {
			continue // not in the node set the controller gave: not a target either way
		}
		nodes := slices.Clone(last.nodes)
		nodes[i] = cur
		l.last[uid] = lastSync{svc: last.svc, nodes: nodes, gen: last.gen}
		syncs = append(syncs, due{uid, last.gen})
	}
	l.mu.Unlock()
	l.resumeAll(syncs)
}

// due is a sync to run again at once: the Service's UID and the
// controller's sync whose state it applies.
type due struct {
	uid string
	gen uint64
}

// resumeAll resumes each sync; a newer one from the controller wins.
func (l *Manager) resumeAll(syncs []due) {
	for _, d := range syncs {
		l.resume(d.uid, 0, d.gen)
	}
}
