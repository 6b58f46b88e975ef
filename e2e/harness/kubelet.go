package harness

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// kubelets play the kubelets of a cluster whose nodes run with
// --cloud-provider=external: each registers its Node tainted
// uninitialized, with the pod CIDR node IPAM would give it, and reports
// its Ready condition every heartbeat until stopped.
type kubelets struct {
	kube      kubernetes.Interface
	heartbeat time.Duration
	// running reports whether a node's server runs: a kubelet on a server
	// that is off or gone stops posting, so its node turns NotReady.
	running func(ctx context.Context, name string) bool

	mu    sync.Mutex
	ready map[string]bool
	stop  map[string]context.CancelFunc
}

const (
	uninitializedTaint = "node.cloudprovider.kubernetes.io/uninitialized"
	providedNodeIP     = "alpha.kubernetes.io/provided-node-ip"
)

func newKubelets(kube kubernetes.Interface, heartbeat time.Duration, running func(context.Context, string) bool) *kubelets {
	return &kubelets{kube: kube, heartbeat: heartbeat, running: running, ready: map[string]bool{}, stop: map[string]context.CancelFunc{}}
}

// register creates the Node and starts its heartbeat. nodeIP, when set, is
// the kubelet's --node-ip.
func (k *kubelets) register(ctx context.Context, name, podCIDR, nodeIP string) error {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}},
		Spec: corev1.NodeSpec{
			Taints: []corev1.Taint{{Key: uninitializedTaint, Value: "true", Effect: corev1.TaintEffectNoSchedule}},
		},
	}
	if podCIDR != "" {
		node.Spec.PodCIDR, node.Spec.PodCIDRs = podCIDR, []string{podCIDR}
	}
	if nodeIP != "" {
		node.Annotations = map[string]string{providedNodeIP: nodeIP}
	}
	if _, err := k.kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		return err
	}
	hbCtx, cancel := context.WithCancel(context.Background())
	k.mu.Lock()
	k.ready[name], k.stop[name] = true, cancel
	k.mu.Unlock()
	// Status is a subresource: the kubelet writes it separately, and the
	// CCM may already be initialising the Node.
	if err := k.report(ctx, name); err != nil {
		return err
	}
	go k.beat(hbCtx, name)
	return nil
}

// setReady makes the node's next heartbeats report Ready or NotReady, and
// sends one now.
func (k *kubelets) setReady(ctx context.Context, name string, ready bool) error {
	k.mu.Lock()
	k.ready[name] = ready
	k.mu.Unlock()
	return k.report(ctx, name)
}

func (k *kubelets) beat(ctx context.Context, name string) {
	t := time.NewTicker(k.heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = k.report(ctx, name) // a missed beat is what a real kubelet does too
		}
	}
}

func (k *kubelets) report(ctx context.Context, name string) error {
	k.mu.Lock()
	ready := k.ready[name]
	k.mu.Unlock()
	ready = ready && (k.running == nil || k.running(ctx, name))
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := k.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		now := metav1.Now()
		cond := readyCondition(ready, now)
		replaced := false
		for i, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady {
				if c.Status == cond.Status {
					cond.LastTransitionTime = c.LastTransitionTime
				}
				n.Status.Conditions[i], replaced = cond, true
			}
		}
		if !replaced {
			n.Status.Conditions = append(n.Status.Conditions, cond)
		}
		if len(n.Status.Addresses) == 0 {
			n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: name}}
			if ip := n.Annotations[providedNodeIP]; ip != "" {
				n.Status.Addresses = append([]corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}}, n.Status.Addresses...)
			}
		}
		_, err = k.kube.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
		return err
	})
}

// forget stops a node's heartbeat (its Node was deleted, or the test ends).
func (k *kubelets) forget(name string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if cancel := k.stop[name]; cancel != nil {
		cancel()
	}
	delete(k.stop, name)
	delete(k.ready, name)
}

func (k *kubelets) stopAll() {
	k.mu.Lock()
	names := make([]string, 0, len(k.stop))
	for n := range k.stop {
		names = append(names, n)
	}
	k.mu.Unlock()
	for _, n := range names {
		k.forget(n)
	}
}

func readyCondition(ready bool, now metav1.Time) corev1.NodeCondition {
	c := corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
		Message: "kubelet is posting ready status", LastHeartbeatTime: now, LastTransitionTime: now}
	if !ready {
		c.Status, c.Reason, c.Message = corev1.ConditionFalse, "KubeletNotReady", "the e2e harness says so"
	}
	return c
}
