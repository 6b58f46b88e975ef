package scale

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

const uninitializedTaint = "node.cloudprovider.kubernetes.io/uninitialized"

// watch records when each Node was initialised or deleted and when each
// Service first had an address, from informers, so no phase polls the
// apiserver for them.
type watch struct {
	stopCh chan struct{}

	mu          sync.Mutex
	initialised map[string]time.Time
	deleted     map[string]time.Time
	addressed   map[string]time.Time // namespace/name
	services    cache.Store
}

func startWatch(ctx context.Context, kube kubernetes.Interface) (*watch, error) {
	w := &watch{stopCh: make(chan struct{}), initialised: map[string]time.Time{}, deleted: map[string]time.Time{}, addressed: map[string]time.Time{}}
	f := informers.NewSharedInformerFactory(kube, 0)
	nodes := f.Core().V1().Nodes().Informer()
	if _, err := nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { w.node(o) },
		UpdateFunc: func(_, o any) { w.node(o) },
		DeleteFunc: func(o any) {
			if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = d.Obj
			}
			if n, ok := o.(*corev1.Node); ok {
				w.mu.Lock()
				w.deleted[n.Name] = time.Now()
				w.mu.Unlock()
			}
		},
	}); err != nil {
		return nil, err
	}
	services := f.Core().V1().Services().Informer()
	if _, err := services.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { w.service(o) },
		UpdateFunc: func(_, o any) { w.service(o) },
	}); err != nil {
		return nil, err
	}
	w.services = services.GetStore()
	f.Start(w.stopCh)
	for typ, ok := range f.WaitForCacheSync(ctx.Done()) {
		if !ok {
			close(w.stopCh)
			return nil, fmt.Errorf("watching %v: the cache did not sync", typ)
		}
	}
	return w, nil
}

func (w *watch) stop() { close(w.stopCh) }

func (w *watch) node(o any) {
	n, ok := o.(*corev1.Node)
	if !ok || slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == uninitializedTaint }) {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, seen := w.initialised[n.Name]; !seen {
		w.initialised[n.Name] = time.Now()
	}
}

func (w *watch) service(o any) {
	s, ok := o.(*corev1.Service)
	if !ok || len(s.Status.LoadBalancer.Ingress) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	key := s.Namespace + "/" + s.Name
	if _, seen := w.addressed[key]; !seen {
		w.addressed[key] = time.Now()
	}
}

// initialisedAt is when each named Node was first seen without the
// uninitialized taint; missing names were not.
func (w *watch) initialisedAt(names []string) map[string]time.Time {
	return w.pick(w.initialised, names)
}

// addressedAt is when each Service (namespace/name) first had an address.
func (w *watch) addressedAt(keys []string) map[string]time.Time { return w.pick(w.addressed, keys) }

// deletedAt is when the Node was deleted, or zero.
func (w *watch) deletedAt(name string) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.deleted[name]
}

// loadBalancerServicesLeft counts the LoadBalancer Services still there
// (with its finalizer, a deleted one stays until the CCM has deleted its
// load balancer).
func (w *watch) loadBalancerServicesLeft() int {
	n := 0
	for _, o := range w.services.List() {
		if s, ok := o.(*corev1.Service); ok && s.Spec.Type == corev1.ServiceTypeLoadBalancer {
			n++
		}
	}
	return n
}

func (w *watch) pick(m map[string]time.Time, keys []string) map[string]time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]time.Time, len(keys))
	for _, k := range keys {
		if t, ok := m[k]; ok {
			out[k] = t
		}
	}
	return out
}
