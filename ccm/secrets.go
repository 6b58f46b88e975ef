package ccm

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// secretWatch reads the TLS Secrets that Services name for their
// certificates (loadbalancer.Secrets): one watch per Secret, by its name
// in its Service's namespace, while a Service names it, and no other
// Secret of the cluster. changed is told of each change of one.
type secretWatch struct {
	kube    clientset.Interface
	changed func(key string)
	syncFor time.Duration // how long Get waits for a new watch's first listing

	mu      sync.Mutex
	users   map[string]map[string]bool // by namespace/name: the Service UIDs naming it
	watches map[string]*secretInformer
}

type secretInformer struct {
	inf  cache.SharedIndexInformer
	stop chan struct{}
}

func newSecretWatch(kube clientset.Interface, changed func(key string)) *secretWatch {
	return &secretWatch{kube: kube, changed: changed, syncFor: 5 * time.Second,
		users: map[string]map[string]bool{}, watches: map[string]*secretInformer{}}
}

// Use starts a watch for each Secret uid names that has none, and stops
// those no Service names any more.
func (w *secretWatch) Use(uid string, keys []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for key, uids := range w.users {
		if uids[uid] && !slices.Contains(keys, key) {
			delete(uids, uid)
			if len(uids) == 0 {
				delete(w.users, key)
				if s := w.watches[key]; s != nil {
					close(s.stop)
					delete(w.watches, key)
				}
			}
		}
	}
	for _, key := range keys {
		if w.users[key] == nil {
			w.users[key] = map[string]bool{}
		}
		w.users[key][uid] = true
		if w.watches[key] == nil {
			w.watches[key] = w.start(key)
		}
	}
}

// start watches the one Secret key.
func (w *secretWatch) start(key string) *secretInformer {
	ns, name, _ := strings.Cut(key, "/")
	selector := fields.OneTermEqualSelector("metadata.name", name).String()
	factory := informers.NewSharedInformerFactoryWithOptions(w.kube, 0, informers.WithNamespace(ns),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = selector }))
	inf := factory.Core().V1().Secrets().Informer()
	tell := func(any) { w.changed(key) }
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: tell, DeleteFunc: tell,
		UpdateFunc: func(old, cur any) {
			if o, ok := old.(*corev1.Secret); ok {
				if c, ok := cur.(*corev1.Secret); ok && o.ResourceVersion == c.ResourceVersion {
					return // a resync: nothing changed
				}
			}
			w.changed(key)
		}})
	s := &secretInformer{inf: inf, stop: make(chan struct{})}
	factory.Start(s.stop)
	return s
}

// Get is the Secret key from its watch; while the watch has not listed
// yet (a new one, or one the CCM may not read), from the API, whose
// refusal names the missing permission.
func (w *secretWatch) Get(ctx context.Context, key string) (*corev1.Secret, error) {
	w.mu.Lock()
	s := w.watches[key]
	w.mu.Unlock()
	if s != nil {
		waitCtx, cancel := context.WithTimeout(ctx, w.syncFor)
		synced := cache.WaitForCacheSync(waitCtx.Done(), s.inf.HasSynced)
		cancel()
		if synced {
			obj, ok, err := s.inf.GetStore().GetByKey(key)
			if err != nil || !ok {
				return nil, err
			}
			sec, _ := obj.(*corev1.Secret)
			return sec, nil
		}
	}
	ns, name, _ := strings.Cut(key, "/")
	sec, err := w.kube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case apierrors.IsForbidden(err):
		return nil, fmt.Errorf("reading Secret %s: the CCM may not read Secrets in namespace %s: grant it get, list and watch there "+
			"(the chart's rbac.certificateSecretNamespaces): %w", key, ns, err)
	case err != nil:
		return nil, fmt.Errorf("reading Secret %s: %w", key, err)
	}
	return sec, nil
}

// stopAll ends every watch.
func (w *secretWatch) stopAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for key, s := range w.watches {
		close(s.stop)
		delete(w.watches, key)
	}
}
