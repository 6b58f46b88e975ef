package ccm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/inventory"
	"github.com/hcloudlab/hcloud-ccm/ccm/providerid"
)

// The upstream cloud-node controller labels a Node once, when it
// initialises it; server labels change later (in the Console, by an
// autoscaler). The label sync keeps them on the Nodes: every period it
// compares each Node with its server as the inventory holds it, and
// patches the Node where they differ. It reads only what the inventory
// already holds, never the API: the servers are kept fresh by the
// controllers that read them anyway (the Node status updates, the
// listings), so a change to a server label shows on the Node within the
// inventory's staleness bound plus one period, at no request.

// labelSyncPeriod is how often the Nodes are compared with their servers.
const labelSyncPeriod = 10 * time.Second

// labelSync keeps server labels on Nodes as labels and taints.
type labelSync struct {
	cfg      ServerLabelsConfig
	inv      *inventory.Inventory
	period   time.Duration
	nodes    atomic.Pointer[coreinformers.NodeInformer] // the controller manager's informer (UseNodes)
	kube     kubernetes.Interface
	recorder record.EventRecorder

	mu     sync.Mutex
	warned map[string]string // Node name -> the Warning last posted, posted again only when it changes
}

func newLabelSync(cfg ServerLabelsConfig, inv *inventory.Inventory, period time.Duration) *labelSync {
	return &labelSync{cfg: cfg, inv: inv, period: period, warned: map[string]string{}}
}

// useNodes gives the sync the cluster's Nodes.
func (l *labelSync) useNodes(inf coreinformers.NodeInformer) {
	inf.Informer() // registered before the factory starts
	l.nodes.Store(&inf)
}

// start runs the sync every period until ctx ends, with a client of
// builder's; without one it does not run.
func (l *labelSync) start(ctx context.Context, builder cloudprovider.ControllerClientBuilder, recorder record.EventRecorder) {
	kube, err := builder.Client("hcloud-server-labels")
	if err != nil {
		klog.ErrorS(err, "No Kubernetes client for the server label sync; server labels do not reach the Nodes")
		return
	}
	l.kube, l.recorder = kube, recorder
	go func() {
		t := time.NewTicker(l.period)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				l.syncAll(ctx)
			}
		}
	}()
}

// syncAll compares every Node of a cloud server with its server; it
// waits for the Node informer's first listing.
func (l *labelSync) syncAll(ctx context.Context) {
	inf := l.nodes.Load()
	if inf == nil || !(*inf).Informer().HasSynced() {
		return
	}
	nodes, err := (*inf).Lister().List(labels.Everything())
	if err != nil {
		klog.ErrorS(err, "Listing Nodes for the server label sync")
		return
	}
	l.forgetGone(nodes)
	for _, n := range nodes {
		if ctx.Err() != nil {
			return
		}
		if err := l.syncNode(ctx, n); err != nil {
			klog.V(2).InfoS("Server labels not synced; tried again next period", "node", klog.KObj(n), "err", err)
		}
	}
}

// syncNode brings one Node to its server's labels. A Node without a
// cloud server's provider ID, or whose server the inventory does not
// hold, is left alone. With a problem the Node is left as it was, with a
// Warning event.
func (l *labelSync) syncNode(ctx context.Context, node *corev1.Node) error {
	pid := node.Spec.ProviderID
	if pid == "" || providerid.IsRobot(pid) {
		return nil
	}
	id, err := providerid.ToServerID(pid)
	if err != nil {
		return nil
	}
	s := l.inv.KnownID(id)
	if s == nil {
		return nil
	}
	w := wantedOf(s.Labels, l.cfg)
	if len(w.problems) > 0 {
		l.warn(node, eventInvalidServerLabel, fmt.Sprintf("server %s: %s; the Node's labels and taints are left as they are until the server's labels are fixed",
			s.Name, strings.Join(w.problems, "; ")))
		return nil
	}
	p := plan(node, w)
	if len(p.conflicts) > 0 {
		l.warn(node, eventServerLabelConflict, fmt.Sprintf("the Node has %s, which the CCM did not write: left as it is; remove it from the Node for the server's to apply",
			strings.Join(p.conflicts, ", ")))
	} else {
		l.warn(node, "", "")
	}
	if !p.changes() {
		return nil
	}
	patch, err := p.mergePatch(node)
	if err != nil {
		return err
	}
	_, err = l.kube.CoreV1().Nodes().Patch(ctx, node.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsConflict(err) {
		return fmt.Errorf("the Node changed meanwhile: %w", err)
	}
	if err == nil {
		klog.InfoS("Server labels synced to the Node", "node", klog.KObj(node), "server", s.Name, "labels", p.recordLabels, "taints", p.recordTaints)
	}
	return err
}

// forgetGone drops the Warnings remembered for Nodes that are gone, so
// the record holds at most one entry per Node there is.
func (l *labelSync) forgetGone(nodes []*corev1.Node) {
	there := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		there[n.Name] = true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for name := range l.warned {
		if !there[name] {
			delete(l.warned, name)
		}
	}
}

// warn posts a Warning once per message and Node; reason "" forgets the
// last one, so a problem that comes back is posted again.
func (l *labelSync) warn(node *corev1.Node, reason, msg string) {
	l.mu.Lock()
	last := l.warned[node.Name]
	if reason == "" {
		delete(l.warned, node.Name)
	} else {
		l.warned[node.Name] = reason + msg
	}
	l.mu.Unlock()
	if reason == "" || last == reason+msg || l.recorder == nil {
		return
	}
	l.recorder.Event(node, corev1.EventTypeWarning, reason, msg)
}

// mergePatch is the plan as a JSON merge patch, on the Node's
// resourceVersion: a Node changed since it was read is not overwritten
// (the taints are sent whole), and the next period reads it again.
func (p labelPlan) mergePatch(node *corev1.Node) ([]byte, error) {
	record := func(v string) *string {
		if v == "" {
			return nil
		}
		return &v
	}
	meta := map[string]any{}
	if node.ResourceVersion != "" {
		meta["resourceVersion"] = node.ResourceVersion
	}
	if len(p.labels) > 0 {
		meta["labels"] = p.labels
	}
	if p.recordsChanged {
		meta["annotations"] = map[string]*string{AnnotationManagedLabels: record(p.recordLabels), AnnotationManagedTaints: record(p.recordTaints)}
	}
	patch := map[string]any{"metadata": meta}
	if p.taintsChanged {
		taints := p.taints
		if taints == nil {
			taints = []corev1.Taint{}
		}
		patch["spec"] = map[string]any{"taints": taints}
	}
	return json.Marshal(patch)
}
