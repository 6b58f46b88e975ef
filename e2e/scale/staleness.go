package scale

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// addressChange turns fakecloud pessimistic (a primary IP moved in the
// Console leaves no server action) and moves a Node's public IPv4: the
// time until the Node shows it is the staleness figure of issue #25. The
// phases after it run pessimistic too.
func (r *runner) addressChange(ctx context.Context) error {
	name := nodeName(2)
	const ip = "198.51.100.50" // outside the dedicated servers' 203.0.113.0/24: an address has one holder
	return r.measure(ctx, Row{Phase: "a node's address moved behind the CCM's back, pessimistic realism", Key: "address"}, func(row *Row) error {
		if err := r.cloud.SetRealism(ctx, fakecloud.RealismPessimistic); err != nil {
			return err
		}
		start := time.Now()
		if err := r.cloud.Apply(ctx, fakecloud.Event{Type: "set_server_ip", ServerName: name, IP: ip}); err != nil {
			return err
		}
		if err := r.until(ctx, r.cfg.scaled(20*time.Minute), name+"'s ExternalIP "+ip, func() (bool, string) {
			got := r.externalIP(ctx, name)
			return got == ip, "still " + got
		}); err != nil {
			return err
		}
		row.Wall = time.Since(start)
		row.Notes = "from the event until the Node's ExternalIP; the primary IP's actions name only the primary IP"
		return nil
	})
}

// externalIP is a Node's IPv4 ExternalIP, or what went wrong reading it.
func (r *runner) externalIP(ctx context.Context, name string) string {
	n, err := r.env.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err.Error()
	}
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeExternalIP && !strings.Contains(a.Address, ":") {
			return a.Address
		}
	}
	return "none"
}

// joinThenDelete: a Node joins (NotReady at first, as a kubelet is until
// its network is up, so the lifecycle check reads its server), turns
// Ready, and its server is deleted 10 s after it joined; the kubelet
// reports NotReady at once. The time measured is until the Node is gone.
func (r *runner) joinThenDelete(ctx context.Context) error {
	name, i := joinName, r.cfg.Nodes+2
	return r.measure(ctx, Row{Phase: "a server deleted 10 s after its Node joined", Key: "joindeleted"}, func(row *Row) error {
		joined := time.Now()
		if err := r.env.RegisterNodeIP(ctx, name, podCIDR(i), nodeIP(i)); err != nil {
			return err
		}
		if err := r.env.SetReady(ctx, name, false); err != nil {
			return err
		}
		if err := r.until(ctx, time.Minute, name+" initialised", func() (bool, string) {
			return len(r.watch.initialisedAt([]string{name})) == 1, "not yet"
		}); err != nil {
			return err
		}
		if err := r.sleep(ctx, 2*r.cfg.scaled(monitorPeriod)); err != nil { // checked while NotReady
			return err
		}
		if err := r.env.SetReady(ctx, name, true); err != nil {
			return err
		}
		if err := r.sleep(ctx, time.Until(joined.Add(10*time.Second))); err != nil {
			return err
		}
		start := time.Now()
		if err := r.deleteServerOf(ctx, name); err != nil {
			return err
		}
		if err := r.until(ctx, 5*time.Minute, name+" deleted", func() (bool, string) { return !r.watch.deletedAt(name).IsZero(), "not yet" }); err != nil {
			return err
		}
		r.env.ForgetNode(name)
		row.Wall = r.watch.deletedAt(name).Sub(start)
		row.Notes = fmt.Sprintf("time from the server's deletion, %s after the join, until the Node's", round(start.Sub(joined)))
		return nil
	})
}

// notReadyThenDeleted: a Node NotReady for a while, its server hung or
// powered off, whose server an operator then deletes. The lifecycle
// controller has read the server since the turn, so the CCM must not
// trust that answer long: the Node goes within one early read.
func (r *runner) notReadyThenDeleted(ctx context.Context) error {
	name := nodeName(r.cfg.Pool + 1) // Ready again since the NotReady phases, in no pool
	notReady := r.cfg.scaled(time.Minute)
	return r.measure(ctx, Row{Phase: fmt.Sprintf("a server deleted under a Node NotReady for %s", round(notReady)), Key: "notreadydeleted"}, func(row *Row) error {
		if err := r.env.SetReady(ctx, name, false); err != nil {
			return err
		}
		if err := r.sleep(ctx, notReady); err != nil {
			return err
		}
		start := time.Now()
		if err := r.cloud.Apply(ctx, fakecloud.Event{Type: "delete_server", ServerName: name}); err != nil {
			return err
		}
		if err := r.until(ctx, 5*time.Minute, name+" deleted", func() (bool, string) { return !r.watch.deletedAt(name).IsZero(), "not yet" }); err != nil {
			return err
		}
		r.env.ForgetNode(name)
		row.Wall = r.watch.deletedAt(name).Sub(start)
		row.Notes = fmt.Sprintf("time from the server's deletion, %s after its Node turned NotReady, until the Node's", round(notReady))
		return nil
	})
}
