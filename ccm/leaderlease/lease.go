// Package leaderlease gives the leader election lease back when the CCM
// stops, and fails liveness when this process leads but the lease says
// otherwise. The upstream framework does neither.
package leaderlease

import (
	"context"
	"fmt"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

// Lease gives the leader election lease back when the process stops
// on SIGTERM, so the next replica leads within its retry period (2 s)
// rather than after the lease runs out (15 s). The upstream framework never
// releases it. The framework initialises the provider only on the leader,
// right after it acquired the lease, so the holder read then is this
// process; a lease held by anyone else by the time of release is left
// alone, and the update is conditional on the version read.
type Lease struct {
	kube            kubernetes.Interface
	namespace, name string

	mu     sync.Mutex
	holder string // this process's identity, once it leads
}

// New is the lease kube's leader election uses, namespace/name.
func New(kube kubernetes.Interface, namespace, name string) *Lease {
	return &Lease{kube: kube, namespace: namespace, name: name}
}

// Acquired records the lease's holder: this process, which just won it.
func (l *Lease) Acquired(ctx context.Context) {
	lease, err := l.kube.CoordinationV1().Leases(l.namespace).Get(ctx, l.name, metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil {
		klog.ErrorS(err, "Reading the leader lease; it will not be released at shutdown", "lease", l.namespace+"/"+l.name)
		return
	}
	l.mu.Lock()
	l.holder = *lease.Spec.HolderIdentity
	l.mu.Unlock()
}

// Release empties the lease if this process still holds it, as client-go's
// ReleaseOnCancel does: no holder, a one-second duration, renewed now.
// The leader election still runs beside it and renews every retry period:
// a renewal between the read and the write makes the write conflict, so
// it is read and written again, a few times.
func (l *Lease) Release(ctx context.Context) error {
	released := false
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		holder, lease, err := l.read(ctx)
		if holder == "" || err != nil {
			return err // never led, or unreadable
		}
		if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity != holder {
			return nil // another replica leads already
		}
		now := metav1.NewMicroTime(time.Now())
		lease.Spec = coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To(""),
			LeaseDurationSeconds: ptr.To(int32(1)),
			AcquireTime:          &now,
			RenewTime:            &now,
			LeaseTransitions:     lease.Spec.LeaseTransitions,
		}
		_, err = l.kube.CoordinationV1().Leases(l.namespace).Update(ctx, lease, metav1.UpdateOptions{})
		released = err == nil
		return err
	})
	if err != nil {
		return fmt.Errorf("releasing lease %s/%s: %w", l.namespace, l.name, err)
	}
	if released {
		klog.InfoS("Released the leader lease", "lease", l.namespace+"/"+l.name)
	}
	return nil
}

// leaseCloud tells the lease when the framework initialises the provider,
// which it does once this process leads.
type leaseCloud struct {
	cloudprovider.Interface
	lease *Lease
}

// Wrap is cloud, telling l when the framework initialises it: the moment
// this process leads.
func Wrap(cloud cloudprovider.Interface, l *Lease) cloudprovider.Interface {
	return leaseCloud{Interface: cloud, lease: l}
}

func (c leaseCloud) Initialize(b cloudprovider.ControllerClientBuilder, stop <-chan struct{}) {
	c.lease.Acquired(context.Background())
	c.Interface.Initialize(b, stop)
}

// leaseGrace is how long past its duration a lease this process leads
// under may go unrenewed before liveness fails: client-go's leader
// election renews every 2 s and gives up (and the process exits) after
// 10 s, so a lease this stale means the election is wedged.
const leaseGrace = 20 * time.Second

// Check fails liveness when this process leads but the lease says
// otherwise: another replica holds it, or nobody renewed it for its
// duration and leaseGrace. A lease that cannot be read passes (readiness
// reports an unreachable apiserver; a restart would not help).
func (l *Lease) Check(ctx context.Context) error {
	holder, lease, err := l.read(ctx)
	if holder == "" || err != nil {
		return nil // not leading, or the apiserver does not answer
	}
	switch {
	case lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity != holder:
		return fmt.Errorf("this process leads, but lease %s/%s is held by %q", l.namespace, l.name, ptr.Deref(lease.Spec.HolderIdentity, ""))
	case lease.Spec.RenewTime != nil && lease.Spec.LeaseDurationSeconds != nil:
		stale := time.Since(lease.Spec.RenewTime.Time) - time.Duration(*lease.Spec.LeaseDurationSeconds)*time.Second
		if stale > leaseGrace {
			return fmt.Errorf("this process leads, but lease %s/%s was last renewed %s ago", l.namespace, l.name,
				time.Since(lease.Spec.RenewTime.Time).Round(time.Second))
		}
	}
	return nil
}

// read is this process's identity as the lease's holder ("" until it
// leads) and, once it leads, the lease as the apiserver has it.
func (l *Lease) read(ctx context.Context) (string, *coordinationv1.Lease, error) {
	l.mu.Lock()
	holder := l.holder
	l.mu.Unlock()
	if holder == "" {
		return "", nil, nil
	}
	lease, err := l.kube.CoordinationV1().Leases(l.namespace).Get(ctx, l.name, metav1.GetOptions{})
	return holder, lease, err
}
