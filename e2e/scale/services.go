package scale

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The load balancer phases: Services created, resynced, their pool Node
// replaced, and deleted.

// createServices creates every LoadBalancer Service at once.
func (r *runner) createServices(ctx context.Context) error {
	s := r.cfg.Services
	return r.measure(ctx, Row{Phase: fmt.Sprintf("%d Services created at once", s), Key: "create"}, func(row *Row) error {
		start := time.Now()
		if err := parallel(ctx, s, 16, func(i int) error {
			_, err := r.env.Kube.CoreV1().Services("default").Create(ctx, service(i), metav1.CreateOptions{})
			return err
		}); err != nil {
			return err
		}
		keys := serviceKeys(s)
		var at map[string]time.Time
		if err := r.until(ctx, 5*time.Minute, "every Service has an address", func() (bool, string) {
			at = r.watch.addressedAt(keys)
			return len(at) == s, fmt.Sprintf("%d of %d have an address", len(at), s)
		}); err != nil {
			return err
		}
		var last time.Duration
		for _, t := range at {
			last = max(last, t.Sub(start))
		}
		row.Wall = last
		row.Notes = fmt.Sprintf("every Service had its address %s after the first was created; requests counted until the pool's %d targets were on every load balancer and the CCM had sent nothing for 3 s", round(last), r.cfg.Pool)
		if err := r.untilTargets(ctx, r.pool()); err != nil {
			return err
		}
		r.settle(ctx) // the polls that see the last actions end belong here
		return nil
	})
}

// resyncServices makes the service controller sync every Service again
// with nothing to change: an annotation the CCM does not read changes.
func (r *runner) resyncServices(ctx context.Context) error {
	return r.measure(ctx, Row{Phase: fmt.Sprintf("no-op resync of %d Services", r.cfg.Services), Key: "resync"}, func(row *Row) error {
		since := metav1.NewTime(time.Now().Truncate(time.Second))
		patch := []byte(fmt.Sprintf(`{"metadata":{"annotations":{"scale.hcloudlab.dev/resync":%q}}}`, time.Now().Format(time.RFC3339Nano)))
		if err := parallel(ctx, r.cfg.Services, 16, func(i int) error {
			_, err := r.env.Kube.CoreV1().Services("default").Patch(ctx, serviceName(i), types.MergePatchType, patch, metav1.PatchOptions{})
			return err
		}); err != nil {
			return err
		}
		// The CCM reports each sync as an EnsuredLoadBalancer event.
		return r.until(ctx, 5*time.Minute, "an EnsuredLoadBalancer event for every Service", func() (bool, string) {
			n := r.ensuredSince(ctx, since)
			return n == r.cfg.Services, fmt.Sprintf("%d of %d synced", n, r.cfg.Services)
		})
	})
}

// replaceNode joins a Node on the spare server and deletes a pool Node's
// server: its Node goes NotReady, the CCM deletes it, and every load
// balancer swaps the target.
func (r *runner) replaceNode(ctx context.Context) error {
	old := nodeName(r.cfg.Pool)
	return r.measure(ctx, Row{Phase: fmt.Sprintf("a Node replaced, %d load balancers targeting the pool", r.cfg.Services), Key: "replace"}, func(row *Row) error {
		start := time.Now()
		if err := r.env.RegisterNodeIP(ctx, spareName, podCIDR(r.cfg.Nodes+1), nodeIP(r.cfg.Nodes+1)); err != nil {
			return err
		}
		if err := r.label(ctx, spareName); err != nil {
			return err
		}
		if err := r.deleteServerOf(ctx, old); err != nil {
			return err
		}
		if err := r.until(ctx, 5*time.Minute, "the replaced Node deleted", func() (bool, string) {
			return !r.watch.deletedAt(old).IsZero(), "not yet"
		}); err != nil {
			return err
		}
		r.env.ForgetNode(old)
		want := append(r.pool()[:r.cfg.Pool-1], spareName)
		if err := r.untilTargets(ctx, want); err != nil {
			return err
		}
		row.Wall = time.Since(start)
		row.Notes = fmt.Sprintf("the old Node was deleted %s after its server", round(r.watch.deletedAt(old).Sub(start)))
		return nil
	})
}

// deleteServices deletes every Service; the CCM deletes the load balancers.
func (r *runner) deleteServices(ctx context.Context) error {
	return r.measure(ctx, Row{Phase: fmt.Sprintf("%d Services deleted", r.cfg.Services), Key: "delete"}, func(*Row) error {
		if err := parallel(ctx, r.cfg.Services, 16, func(i int) error {
			return r.env.Kube.CoreV1().Services("default").Delete(ctx, serviceName(i), metav1.DeleteOptions{})
		}); err != nil {
			return err
		}
		return r.until(ctx, 5*time.Minute, "every load balancer and Service gone", func() (bool, string) {
			st, err := r.cloud.Snapshot(ctx)
			if err != nil {
				return false, err.Error()
			}
			left := r.watch.loadBalancerServicesLeft()
			return len(st.LoadBalancers) == 0 && left == 0, fmt.Sprintf("%d load balancers, %d Services left", len(st.LoadBalancers), left)
		})
	})
}

func serviceName(i int) string { return fmt.Sprintf("web-%03d", i) }

func serviceKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "default/" + serviceName(i)
	}
	return keys
}

// service is Service i: one port, targeting the pool.
func service(i int) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: serviceName(i), Annotations: map[string]string{
			"load-balancer.hetzner.cloud/node-selector": poolLabel + "=true"}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080), NodePort: int32(30000 + i)}}},
	}
}

// pool is the names of the Nodes the load balancers target.
func (r *runner) pool() []string {
	names := make([]string, r.cfg.Pool)
	for i := range names {
		names[i] = nodeName(i + 1)
	}
	return names
}

func (r *runner) label(ctx context.Context, node string) error {
	patch := []byte(fmt.Sprintf(`{"metadata":{"labels":{%q:"true"}}}`, poolLabel))
	_, err := r.env.Kube.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// untilTargets waits until every load balancer targets exactly the servers
// named.
func (r *runner) untilTargets(ctx context.Context, names []string) error {
	return r.until(ctx, 5*time.Minute, "every load balancer targeting "+fmt.Sprint(len(names))+" servers", func() (bool, string) {
		st, err := r.cloud.Snapshot(ctx)
		if err != nil {
			return false, err.Error()
		}
		ids := map[string]int64{}
		for _, s := range st.Servers {
			ids[s.Name] = s.ID
		}
		var want []int64
		for _, n := range names {
			want = append(want, ids[n])
		}
		slices.Sort(want)
		done := 0
		for _, lb := range st.LoadBalancers {
			var got []int64
			for _, t := range lb.Targets {
				if t.Server != nil {
					got = append(got, t.Server.ID)
				}
			}
			slices.Sort(got)
			if slices.Equal(got, want) {
				done++
			}
		}
		return done == r.cfg.Services && len(st.LoadBalancers) == r.cfg.Services, fmt.Sprintf("%d of %d load balancers done", done, r.cfg.Services)
	})
}

// ensuredSince counts the Services with an EnsuredLoadBalancer event at
// or after since.
func (r *runner) ensuredSince(ctx context.Context, since metav1.Time) int {
	events, err := r.env.Kube.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "reason=EnsuredLoadBalancer"})
	if err != nil {
		return 0
	}
	seen := map[string]bool{}
	for _, e := range events.Items {
		last := e.LastTimestamp
		if e.Series != nil {
			last = metav1.NewTime(e.Series.LastObservedTime.Time)
		}
		if !last.Before(&since) {
			seen[e.InvolvedObject.Name] = true
		}
	}
	return len(seen)
}
