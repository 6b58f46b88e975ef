package loadbalancer

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	cloudprovider "k8s.io/cloud-provider"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/internal/actionwatch"
)

// Manager turns LoadBalancer Services into Hetzner load balancers:
// each sync computes the desired load balancer (desiredLB), compares it
// with the known one (lbPlan) and sends only the differences.
type Manager struct {
	client      *hcloud.Client
	defaults    annotation.Defaults
	networkID   int64
	networkZone string
	robot       bool // dedicated servers' Nodes are ip targets
	// instancesFamily is HCLOUD_INSTANCES_ADDRESS_FAMILY (lbEnv.InstancesFamily).
	instancesFamily string
	class           Class // the Services served
	store           *lbStore
	actions         *actionwatch.Watch
	certs           *certs
	recorder        record.EventRecorder
	// actionWait bounds how long a sync waits for an earlier action on the
	// same load balancer before it returns an api.RetryError.
	actionWait time.Duration
	// retryUnit is the first wait before a resumed sync that failed is
	// tried again; later waits double.
	retryUnit time.Duration

	mu       sync.Mutex
	last     map[string]lastSync    // by Service UID: the newest desired state, to resume or re-apply
	gen      uint64                 // counts the controller's syncs
	waiting  map[int64]string       // load balancer ID: the Service whose sync waits for its action
	failures map[string]int         // by Service UID: failed actions or resumed syncs in a row
	warned   map[string]bool        // by Service UID: told that its handed-off sync cannot learn its action's end
	pending  map[string]*time.Timer // by Service UID: its one resume to come
	secrets  Secrets                // reads the TLS Secrets Services name; nil: none
	// serviceUIDs tells whether a Service has a UID; nil: never known.
	serviceUIDs ServiceUIDs
	// secretUsers are the Secrets (namespace/name) each Service names, by UID.
	secretUsers map[string][]string
	// deleting are the load balancers deleted whose delete action has not
	// been seen to end, by Service UID (delete_wait.go).
	deleting map[string]deletion
	now      func() time.Time
	ctx      context.Context // the provider's lifetime, for resuming
	// health is the targets' health last read, by Service (health_report.go).
	health     *healthState
	healthOpts HealthOptions
}

type lastSync struct {
	svc   *corev1.Service
	nodes []*corev1.Node
	gen   uint64 // the controller's sync that set it
}

var _ cloudprovider.LoadBalancer = (*Manager)(nil)

// Options are what a Manager needs besides the client.
type Options struct {
	Defaults    annotation.Defaults
	NetworkID   int64         // 0: no network
	NetworkZone string        // the network's zone, for load balancers placed by zone
	MaxAge      time.Duration // how old a listing of load balancers or certificates may be
	Now         func() time.Time
	// Robot makes dedicated (Robot) servers' Nodes ip targets
	// (ROBOT_ENABLED); without it they are left out.
	Robot bool
	// InstancesAddressFamily is HCLOUD_INSTANCES_ADDRESS_FAMILY: with
	// dualstack, a Node without an IPv4 ExternalIP is a target on its IPv6.
	InstancesAddressFamily string
	// Class is the Services served; unset, those of DefaultClass and
	// those without a class.
	Class Class
	// TypesCounted is told of each ask for the load balancer types:
	// answered from the last listing (hit) or by a new one; nil: not
	// counted.
	TypesCounted func(hit bool)
}

// New returns a Manager; Start runs its background work.
func New(client *hcloud.Client, o Options) *Manager {
	if o.Now == nil {
		o.Now = time.Now
	}
	l := &Manager{client: client, defaults: o.Defaults, networkID: o.NetworkID, networkZone: o.NetworkZone, robot: o.Robot, instancesFamily: o.InstancesAddressFamily, class: o.Class.OrDefault(),
		store: newLBStore(client, o.Now, o.MaxAge), actions: actionwatch.New(client),
		certs: newCerts(client, o.Now, o.MaxAge), actionWait: 5 * time.Second, retryUnit: 5 * time.Second,
		last: map[string]lastSync{}, waiting: map[int64]string{}, failures: map[string]int{}, warned: map[string]bool{}, pending: map[string]*time.Timer{}, secretUsers: map[string][]string{}, deleting: map[string]deletion{}, now: o.Now, ctx: context.Background(),
		health: newHealthState()}
	l.actions.OnEnd, l.actions.OnPollFailed = l.actionEnded, l.pollFailed
	l.store.typesCounted = o.TypesCounted
	return l
}

// Start sends events to recorder and, until ctx ends, polls the actions
// the Manager started and re-applies a Service whose action failed.
func (l *Manager) Start(ctx context.Context, recorder record.EventRecorder) {
	l.mu.Lock()
	l.recorder, l.ctx = recorder, ctx
	l.mu.Unlock()
	go l.actions.Run(ctx)
}

// ActionsRunning is how many of its actions the Manager has not yet
// seen finish.
func (l *Manager) ActionsRunning() int { return l.actions.Count() }

// GetLoadBalancerName is the name annotation, else the official default.
func (l *Manager) GetLoadBalancerName(_ context.Context, _ string, svc *corev1.Service) string {
	if n := strings.TrimSpace(svc.Annotations[string(annotation.Name)]); n != "" {
		return n
	}
	return defaultLBName(svc)
}

// GetLoadBalancer finds the load balancer by its label. A miss is checked
// with the API, since the service controller deletes only what exists.
func (l *Manager) GetLoadBalancer(ctx context.Context, _ string, svc *corev1.Service) (*corev1.LoadBalancerStatus, bool, error) {
	uid := string(svc.UID)
	defer l.store.lock(uid)()
	if l.stillDeleting(uid) {
		// Deleted, but the API has not said it is done: it exists until
		// then, so the deletion goes on and waits.
		return &corev1.LoadBalancerStatus{}, true, nil
	}
	if o, err := annotation.Parse(svc, l.defaults); err == nil && o.ExternallyManaged {
		lb, err := l.store.byName(ctx, o.Name)
		if err != nil || lb == nil {
			return nil, false, err
		}
		return lbStatus(lb, o), true, nil
	}
	lb, err := l.store.get(ctx, uid)
	if err != nil {
		return nil, false, err
	}
	if lb == nil {
		if lb, err = l.byLabel(ctx, uid); err != nil {
			return nil, false, err
		}
		if lb == nil {
			// The upstream controller releases the finalizer of a Service
			// whose load balancer does not exist: while its managed
			// certificate is left, it exists, so the deletion goes on.
			if left, err := l.managedCertLeft(ctx, svc); err != nil || left {
				return &corev1.LoadBalancerStatus{}, left, err
			}
			return nil, false, nil
		}
		l.store.put(uid, lb)
	}
	o, _ := annotation.Parse(svc, l.defaults) // bad annotations: the status with what parsed
	return lbStatus(lb, o), true, nil
}

func (l *Manager) byLabel(ctx context.Context, uid string) (*hcloud.LoadBalancer, error) {
	all, err := listLBs(ctx, l.client, hcloud.LoadBalancerListOpts{ListOpts: hcloud.ListOpts{LabelSelector: uidLabel + "=" + uid}})
	if err != nil || len(all) == 0 {
		return nil, err
	}
	if len(all) > 1 {
		return nil, fmt.Errorf("%d load balancers carry the label %s=%s; remove it from all but one", len(all), uidLabel, uid)
	}
	return all[0], nil
}

// EnsureLoadBalancer creates or updates the Service's load balancer.
func (l *Manager) EnsureLoadBalancer(ctx context.Context, _ string, svc *corev1.Service, nodes []*corev1.Node) (*corev1.LoadBalancerStatus, error) {
	return l.sync(ctx, svc, nodes, true)
}

// UpdateLoadBalancer updates the targets, and whatever else differs, of an
// existing load balancer; without one it does nothing, as upstream.
func (l *Manager) UpdateLoadBalancer(ctx context.Context, _ string, svc *corev1.Service, nodes []*corev1.Node) error {
	_, err := l.sync(ctx, svc, nodes, false)
	return err
}

func (l *Manager) sync(ctx context.Context, svc *corev1.Service, nodes []*corev1.Node, create bool) (*corev1.LoadBalancerStatus, error) {
	uid := string(svc.UID)
	defer l.store.lock(uid)()
	l.mu.Lock()
	l.gen++
	l.last[uid] = lastSync{svc: svc, nodes: nodes, gen: l.gen}
	l.mu.Unlock()
	return l.syncLocked(ctx, svc, nodes, create)
}

// syncLocked is a sync under the Service's lock.
func (l *Manager) syncLocked(ctx context.Context, svc *corev1.Service, nodes []*corev1.Node, create bool) (*corev1.LoadBalancerStatus, error) {
	o, err := annotation.Parse(svc, l.defaults)
	if err != nil {
		return nil, l.badConfig(svc, err)
	}
	l.unsupported(svc)
	if o.ExternallyManaged {
		return l.syncExternal(ctx, svc, o, nodes)
	}
	types, err := l.store.loadTypes(ctx)
	if err != nil {
		return nil, err
	}
	if types[o.Type] == nil {
		return nil, l.badConfig(svc, &annotation.Error{Key: annotation.Type.Short(), Value: o.Type, Accepted: "one of " + strings.Join(types.orderable(l.now()), ", ")})
	}
	if !create {
		// UpdateLoadBalancer changes only a load balancer that exists, so
		// it issues no managed certificate for one that does not: that of
		// a Service being deleted (a new leader's first node sync) would
		// be left behind.
		if lb, err := l.store.get(ctx, string(svc.UID)); err != nil || lb == nil {
			return nil, err
		}
	}
	keys := secretKeys(svc, o)
	src, dropped := l.useSecrets(string(svc.UID), keys)
	certs, err := l.certs.resolve(ctx, svc, o, src)
	if err != nil {
		return nil, l.badConfig(svc, err)
	}
	want, notices, err := desiredLB(svc, o, nodes, lbEnv{NetworkID: l.networkID, NetworkZone: l.networkZone, Certs: certs, Robot: l.robot, InstancesFamily: l.instancesFamily})
	if err != nil {
		return nil, l.badConfig(svc, err)
	}
	lb, err := l.store.get(ctx, string(svc.UID))
	if err != nil {
		return nil, err
	}
	if lb == nil && !create {
		l.notify(svc, notices)
		return nil, nil
	}
	typeNotices, err := typeNotices(o, &want, lb, types, l.now())
	l.notify(svc, typeNotices)
	if err != nil {
		return nil, err
	}
	typ := want.Type
	if lb != nil {
		typ = typeAfter(want, lb, types)
	}
	if err := PortsOverLimit(servicesNeeded(want, lb), typ, types.list()); err != nil {
		return nil, l.badConfig(svc, err)
	}
	if lb == nil {
		if want.Location == "" && want.NetworkZone == "" {
			return nil, l.badConfig(svc, &annotation.Error{Key: annotation.Location.Short(), Value: "", Accepted: "a location such as fsn1 (or network-zone, HCLOUD_LOAD_BALANCERS_LOCATION or HCLOUD_NETWORK)"})
		}
		l.notify(svc, append(notices, limitTargets(svc, &want, nil, types.maxTargets(want.Type))...))
		if lb, err = l.create(ctx, svc, want); err != nil {
			return nil, err
		}
	} else {
		l.notify(svc, append(notices, limitTargets(svc, &want, lb.Targets, types.maxTargets(typeAfter(want, lb, types)))...))
	}
	steps, notices := lbPlan(want, lb, types)
	l.notify(svc, notices)
	if err := l.apply(ctx, svc, lb, steps); err != nil {
		return nil, err
	}
	if err := l.cleanSecretCerts(ctx, string(svc.UID), lb, keys, dropped); err != nil {
		return nil, err
	}
	return lbStatus(lb, o), nil
}

// typeAfter is the type lb will have once want is applied: types only grow.
func typeAfter(want lbSpec, lb *hcloud.LoadBalancer, types lbTypes) string {
	if lb.LoadBalancerType == nil || (want.ChangeType && types.bigger(want.Type, lb.LoadBalancerType.Name)) {
		return want.Type
	}
	return lb.LoadBalancerType.Name
}
