package loadbalancer

import (
	"context"
	"fmt"
)

// ServiceUIDs reports whether a Service of the cluster has the UID uid.
// The CCM gives the Manager one that lists the Services; without one, a
// load balancer labelled for another Service is never taken.
type ServiceUIDs func(ctx context.Context, uid string) (bool, error)

// SetServiceUIDs gives the Manager the Services' UIDs, so that it adopts
// by name a load balancer whose service-UID label names a Service that
// no longer exists (recreated under a new UID, or of another cluster).
func (l *Manager) SetServiceUIDs(f ServiceUIDs) {
	l.mu.Lock()
	l.serviceUIDs = f
	l.mu.Unlock()
}

// staleOwner reports whether owner, the UID a load balancer's label
// names, is no Service's: false when that cannot be known. One listing of
// the Services, only when a name is taken by such a load balancer.
func (l *Manager) staleOwner(ctx context.Context, owner string) (bool, error) {
	l.mu.Lock()
	f := l.serviceUIDs
	l.mu.Unlock()
	if f == nil {
		return false, nil
	}
	live, err := f(ctx, owner)
	if err != nil {
		return false, fmt.Errorf("learning whether a Service has the UID %s: %w", owner, err)
	}
	return !live, nil
}
