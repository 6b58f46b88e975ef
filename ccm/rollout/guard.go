package rollout

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// retryEvery is how often a read the apiserver did not answer is tried
// again: a pod may start before its node routes to the apiserver, and a
// guard given up then would let a rollout run two revisions at once.
var retryEvery = 2 * time.Second

// retry calls read until it succeeds, fails for good (forbidden, not
// found, unauthorized: the guard is then off), or ctx ends.
func retry(ctx context.Context, read func() error) error {
	for attempt := 0; ; attempt++ {
		err := read()
		if err == nil || apierrors.IsForbidden(err) || apierrors.IsNotFound(err) || apierrors.IsUnauthorized(err) {
			return err
		}
		if attempt%15 == 0 {
			klog.ErrorS(err, "Rollout guard: the apiserver does not answer yet; trying again", "every", retryEvery)
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, context.Cause(ctx))
		case <-time.After(retryEvery):
		}
	}
}

// Guard watches the ReplicaSets and pods of the CCM pod's namespace. It
// reads only what a namespaced Role with get, list and watch on pods and
// replicasets allows.
type Guard struct {
	pod        string
	own, owner types.UID // the pod's ReplicaSet and its Deployment
	sets       appslisters.ReplicaSetNamespaceLister
	pods       corelisters.PodNamespaceLister
	changed    chan struct{}
	now        func() time.Time
}

// New finds the ReplicaSet and Deployment of pod namespace/name and starts
// watching their namespace until ctx ends. It returns nil, and no error,
// when the pod belongs to no Deployment (a DaemonSet's pods share the
// Lease; a bare pod has no rollout).
func New(ctx context.Context, kube kubernetes.Interface, namespace, name string) (*Guard, error) {
	var pod *corev1.Pod
	err := retry(ctx, func() (err error) {
		pod, err = kube.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("reading this pod %s/%s (POD_NAMESPACE, POD_NAME): %w", namespace, name, err)
	}
	ref := metav1.GetControllerOf(pod)
	if ref == nil || ref.Kind != "ReplicaSet" {
		klog.InfoS("Rollout guard off: the pod belongs to no Deployment", "pod", klog.KObj(pod))
		return nil, nil
	}
	var rs *appsv1.ReplicaSet
	if err := retry(ctx, func() (err error) {
		rs, err = kube.AppsV1().ReplicaSets(namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		return err
	}); err != nil {
		return nil, fmt.Errorf("reading this pod's ReplicaSet %s/%s: %w", namespace, ref.Name, err)
	}
	dep := metav1.GetControllerOf(rs)
	if dep == nil || dep.Kind != "Deployment" {
		klog.InfoS("Rollout guard off: the pod's ReplicaSet belongs to no Deployment", "replicaSet", klog.KObj(rs))
		return nil, nil
	}
	// Listing is tried first: a Role that allows get but not list would
	// keep the informers from ever syncing.
	if err := retry(ctx, func() error {
		_, err := kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{Limit: 1})
		if err == nil {
			_, err = kube.AppsV1().ReplicaSets(namespace).List(ctx, metav1.ListOptions{Limit: 1})
		}
		return err
	}); err != nil {
		return nil, fmt.Errorf("listing the pods and ReplicaSets of namespace %s: %w", namespace, err)
	}
	factory := informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace(namespace))
	g := &Guard{
		pod: name, own: rs.UID, owner: dep.UID,
		sets:    factory.Apps().V1().ReplicaSets().Lister().ReplicaSets(namespace),
		pods:    factory.Core().V1().Pods().Lister().Pods(namespace),
		changed: make(chan struct{}, 1),
		now:     time.Now,
	}
	notify := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { g.notify() },
		UpdateFunc: func(any, any) { g.notify() },
		DeleteFunc: func(any) { g.notify() },
	}
	for _, inf := range []cache.SharedIndexInformer{factory.Apps().V1().ReplicaSets().Informer(), factory.Core().V1().Pods().Informer()} {
		if _, err := inf.AddEventHandler(notify); err != nil {
			return nil, err
		}
	}
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return nil, fmt.Errorf("watching %v in namespace %s: %w", typ, namespace, context.Cause(ctx))
		}
	}
	klog.InfoS("Rollout guard on", "pod", klog.KObj(pod), "replicaSet", describe(rs), "deployment", dep.Name)
	return g, nil
}

func (g *Guard) notify() {
	select {
	case g.changed <- struct{}{}:
	default:
	}
}

// state decides from the watched objects.
func (g *Guard) state() (state, []string) {
	sets, _ := g.sets.List(labels.Everything())
	pods, _ := g.pods.List(labels.Everything())
	return decide(g.own, g.owner, sets, pods, g.now())
}

// Wait returns once this pod's revision is the newest and no pod of an
// older one is left, or with ctx's error. While it waits it logs what it
// waits for whenever that changes; a pod whose revision is superseded
// meanwhile waits until it is stopped.
func (g *Guard) Wait(ctx context.Context) error {
	var said []string
	var saidState state = -1
	for {
		s, blocking := g.state()
		if s == act {
			if saidState != -1 {
				klog.InfoS("Rollout guard: no older pod is left; starting")
			}
			return nil
		}
		if s != saidState || !slices.Equal(blocking, said) {
			if s == wait {
				klog.InfoS("Rollout guard: waiting for the pods of older revisions to stop", "pods", blocking)
			} else {
				klog.InfoS("Rollout guard: a newer revision replaces this pod; waiting to be stopped", "state", s.String())
			}
			said, saidState = blocking, s
		}
		if err := g.sleep(ctx); err != nil {
			return err
		}
	}
}

// Watch calls stop once, when a newer revision whose pods do not wait
// appears, and returns then or when ctx ends.
func (g *Guard) Watch(ctx context.Context, stop func()) {
	for {
		if s, _ := g.state(); s == standDown {
			klog.InfoS("Rollout guard: a newer revision does not wait for this pod; stopping now", "pod", g.pod)
			stop()
			return
		}
		if g.sleep(ctx) != nil {
			return
		}
	}
}

// sleep returns at the next change, or after stuckAfter so that a stuck
// terminating pod is let go without a change.
func (g *Guard) sleep(ctx context.Context) error {
	t := time.NewTimer(stuckAfter / 4)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-g.changed:
	case <-t.C:
	}
	return nil
}
