//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// killOp is an operation of the leader-kill sweep: the state before it
// (setup), what sets it off (trigger), and what it has done once it has
// converged (done: what is not done yet, nothing once it is).
type killOp struct {
	name string
	// routes runs the route controller every second; the other operations
	// run it once an hour (and at each takeover), so that no reconcile
	// interleaves with their calls. Routes are listed from the CCM's copy
	// of the network, so a reconcile that changes nothing sends nothing.
	routes  bool
	setup   func(w *world) error
	trigger func(w *world) error
	done    func(w *world) []string
}

// killOps are the operations, in the order the table shows them.
func killOps() []killOp {
	return []killOp{
		// A new server's Node: the CCM has not seen the server yet (a Node
		// of a server it listed at its start costs no call at all).
		{name: "node init", setup: func(w *world) error {
			if err := nodesUp("control-plane-1")(w); err != nil {
				return err
			}
			return w.newServer("worker-4")
		},
			trigger: func(w *world) error { return w.register("worker-4", "") },
			done:    func(w *world) []string { return w.initialised("worker-4") }},
		{name: "load balancer create", setup: nodesUp("control-plane-1", "worker-1"),
			trigger: func(w *world) error { return w.createService(webService()) },
			done:    func(w *world) []string { return w.serviceReady("web", 80) }},
		{name: "load balancer update: port added", setup: webUp,
			trigger: func(w *world) error {
				return w.updateService("web", func(s *corev1.Service) {
					s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: "https", Port: 443, TargetPort: intstr.FromInt32(8443)})
				})
			},
			done: func(w *world) []string { return w.serviceReady("web", 80, 443) }},
		{name: "load balancer targets: node joins", setup: func(w *world) error {
			if err := webUp(w); err != nil {
				return err
			}
			return w.newServer("worker-4")
		},
			trigger: func(w *world) error { return w.register("worker-4", "") },
			done: func(w *world) []string {
				return append(w.initialised("worker-4"), w.serviceReady("web", 80)...)
			}},
		{name: "load balancer delete", setup: webUp,
			trigger: func(w *world) error {
				return w.env.Kube.CoreV1().Services("default").Delete(w.ctx, "web", metav1.DeleteOptions{})
			},
			done: func(w *world) []string { return w.serviceGone("web") }},
		{name: "load balancer targets: node leaves", setup: webUp,
			trigger: func(w *world) error { return w.deleteNode("worker-1") },
			done:    func(w *world) []string { return w.serviceReady("web", 80) }},
		{name: "load balancer managed certificate", setup: nodesUp("control-plane-1", "worker-1"),
			trigger: func(w *world) error { return w.createService(blogService()) },
			done:    func(w *world) []string { return w.serviceReady("blog", 443) }},
		{name: "load balancer delete: managed certificate", setup: blogUp,
			trigger: func(w *world) error {
				return w.env.Kube.CoreV1().Services("default").Delete(w.ctx, "blog", metav1.DeleteOptions{})
			},
			done: func(w *world) []string { return w.serviceGone("blog") }},
		// The server deleted under a Node: its kubelet reports NotReady,
		// and the lifecycle controller (every 2 s) deletes the Node.
		{name: "lifecycle: server deleted", setup: nodesUp("control-plane-1", "worker-1"),
			trigger: func(w *world) error {
				return w.cloud.Apply(w.ctx, fakecloud.Event{Type: "delete_server", ServerName: "worker-1"})
			},
			done: func(w *world) []string { return w.nodeGone("worker-1") }},
		{name: "route add", routes: true,
			setup: func(w *world) error {
				if err := w.register("control-plane-1", cidr(0)); err != nil {
					return err
				}
				if err := w.register("worker-1", ""); err != nil {
					return err
				}
				return w.until(time.Minute, "control-plane-1's route, worker-1 initialised", w.settled)
			},
			// Node IPAM gives worker-1 its pod CIDR.
			trigger: func(w *world) error { return w.setPodCIDR("worker-1", cidr(1)) },
			done:    func(w *world) []string { return w.routed("worker-1") }},
		{name: "route delete", routes: true,
			setup: func(w *world) error {
				for i, n := range []string{"control-plane-1", "worker-1"} {
					if err := w.register(n, cidr(i)); err != nil {
						return err
					}
				}
				return w.until(time.Minute, "two routes", w.settled)
			},
			trigger: func(w *world) error { return w.deleteNode("worker-1") },
			done:    func(w *world) []string { return w.nodeGone("worker-1") }},
	}
}

// nodesUp registers the nodes, without pod CIDRs (routes are an operation
// of their own), and waits until they are initialised.
func nodesUp(names ...string) func(w *world) error {
	return func(w *world) error {
		for _, n := range names {
			if err := w.register(n, ""); err != nil {
				return err
			}
		}
		return w.until(time.Minute, fmt.Sprintf("%v initialised", names), w.settled)
	}
}

// webUp is two Nodes and the Service web with its load balancer.
func webUp(w *world) error { return serviceUp(w, webService(), 80) }

// blogUp is two Nodes and the Service blog with its load balancer and
// its managed certificate.
func blogUp(w *world) error { return serviceUp(w, blogService(), 443) }

// serviceUp is two Nodes and the Service with its load balancer.
func serviceUp(w *world, svc *corev1.Service, port int32) error {
	if err := nodesUp("control-plane-1", "worker-1")(w); err != nil {
		return err
	}
	if err := w.createService(svc); err != nil {
		return err
	}
	return w.until(time.Minute, svc.Name+"'s load balancer", func() []string {
		return append(w.serviceReady(svc.Name, port), w.settled()...)
	})
}

// blogService is https with a certificate the CCM has issued.
func blogService() *corev1.Service {
	const p = "load-balancer.hetzner.cloud/"
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "blog", Annotations: map[string]string{
		p + "protocol": "https", p + "certificate-type": "managed", p + "http-managed-certificate-domains": "blog.example.com"}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": "blog"},
			Ports: []corev1.ServicePort{{Name: "https", Port: 443, TargetPort: intstr.FromInt32(8080)}}}}
}

func webService() *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
}

// register creates a Node as its kubelet would; the invariants then
// expect it to stay (its server exists).
func (w *world) register(name, podCIDR string) error {
	if err := w.env.RegisterNode(w.ctx, name, podCIDR); err != nil {
		return err
	}
	w.nodes = append(w.nodes, name)
	return nil
}

// newServer creates a server in the network through the API, as a node
// pool would, behind the CCM's back.
func (w *world) newServer(name string) error {
	nw, _, err := w.cloud.Client.Network.Get(w.ctx, "cluster")
	if err != nil {
		return err
	}
	_, _, err = w.cloud.Client.Server.Create(w.ctx, hcloud.ServerCreateOpts{Name: name,
		ServerType: &hcloud.ServerType{Name: "cx33"}, Image: &hcloud.Image{Name: "ubuntu-24.04"},
		Location: &hcloud.Location{Name: "fsn1"}, Networks: []*hcloud.Network{nw}})
	if err != nil {
		return fmt.Errorf("create server %s: %w", name, err)
	}
	return nil
}

// deleteNode deletes a Node as an operator does, its kubelet stopped:
// the invariants no longer expect it.
func (w *world) deleteNode(name string) error {
	if err := w.env.Kube.CoreV1().Nodes().Delete(w.ctx, name, metav1.DeleteOptions{}); err != nil {
		return err
	}
	w.env.ForgetNode(name)
	w.nodes = slices.DeleteFunc(w.nodes, func(n string) bool { return n == name })
	return nil
}

// nodeGone is what keeps the Node from being gone.
func (w *world) nodeGone(name string) []string {
	_, err := w.env.Kube.CoreV1().Nodes().Get(w.ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return []string{fmt.Sprintf("Node %s: %v", name, err)}
	}
	return []string{fmt.Sprintf("Node %s still there", name)}
}

func (w *world) createService(s *corev1.Service) error {
	_, err := w.env.Kube.CoreV1().Services("default").Create(w.ctx, s, metav1.CreateOptions{})
	return err
}

func (w *world) updateService(name string, change func(*corev1.Service)) error {
	svcs := w.env.Kube.CoreV1().Services("default")
	s, err := svcs.Get(w.ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	change(s)
	_, err = svcs.Update(w.ctx, s, metav1.UpdateOptions{})
	return err
}

// setPodCIDR gives a Node its pod CIDR, as node IPAM does once.
func (w *world) setPodCIDR(name, podCIDR string) error {
	nodes := w.env.Kube.CoreV1().Nodes()
	n, err := nodes.Get(w.ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	n.Spec.PodCIDR, n.Spec.PodCIDRs = podCIDR, []string{podCIDR}
	_, err = nodes.Update(w.ctx, n, metav1.UpdateOptions{})
	return err
}

// initialised is what keeps the Node from counting as initialised.
func (w *world) initialised(name string) []string {
	n, err := w.env.Kube.CoreV1().Nodes().Get(w.ctx, name, metav1.GetOptions{})
	if err != nil {
		return []string{fmt.Sprintf("Node %s: %v", name, err)}
	}
	var out []string
	if n.Spec.ProviderID == "" || tainted(n, uninitializedTaint) {
		out = append(out, fmt.Sprintf("Node %s not initialised (provider ID %q)", name, n.Spec.ProviderID))
	}
	if n.Labels["node.kubernetes.io/instance-type"] == "" || n.Labels["topology.kubernetes.io/region"] == "" {
		out = append(out, fmt.Sprintf("Node %s lacks the instance type or region label", name))
	}
	if !slices.ContainsFunc(n.Status.Addresses, func(a corev1.NodeAddress) bool { return a.Type == corev1.NodeInternalIP }) {
		out = append(out, fmt.Sprintf("Node %s has no InternalIP", name))
	}
	return out
}

const uninitializedTaint = "node.cloudprovider.kubernetes.io/uninitialized"

// serviceReady is what keeps the Service from having its load balancer
// with exactly these ports and an address in its status; the invariants
// check the load balancer itself.
func (w *world) serviceReady(name string, ports ...int32) []string {
	s, err := w.env.Kube.CoreV1().Services("default").Get(w.ctx, name, metav1.GetOptions{})
	if err != nil {
		return []string{fmt.Sprintf("Service %s: %v", name, err)}
	}
	var out []string
	if len(s.Status.LoadBalancer.Ingress) == 0 {
		out = append(out, fmt.Sprintf("Service %s has no address in its status", name))
	}
	lb, err := w.lbOf(s)
	switch {
	case err != nil:
		out = append(out, err.Error())
	case lb == nil:
		out = append(out, fmt.Sprintf("Service %s has no load balancer", name))
	default:
		var got []int32
		for _, ls := range lb.Services {
			got = append(got, int32(ls.ListenPort))
		}
		slices.Sort(got)
		if !slices.Equal(got, ports) {
			out = append(out, fmt.Sprintf("Service %s's load balancer listens on %v, want %v", name, got, ports))
		}
	}
	return out
}

// serviceGone is what keeps the Service from being gone, its finalizer
// released.
func (w *world) serviceGone(name string) []string {
	s, err := w.env.Kube.CoreV1().Services("default").Get(w.ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return []string{fmt.Sprintf("Service %s: %v", name, err)}
	}
	return []string{fmt.Sprintf("Service %s still there, finalizers %v", name, s.Finalizers)}
}

// routed is what keeps the Node's pod CIDR from being routed; the
// invariants check the gateway.
func (w *world) routed(name string) []string {
	n, err := w.env.Kube.CoreV1().Nodes().Get(w.ctx, name, metav1.GetOptions{})
	if err != nil {
		return []string{fmt.Sprintf("Node %s: %v", name, err)}
	}
	nw, _, err := w.cloud.Client.Network.Get(w.ctx, "cluster")
	if err != nil || nw == nil {
		return []string{fmt.Sprintf("network cluster: %v", err)}
	}
	for _, r := range nw.Routes {
		if r.Destination.String() == n.Spec.PodCIDR {
			return nil
		}
	}
	return []string{fmt.Sprintf("Node %s's pod CIDR %q has no route", name, n.Spec.PodCIDR)}
}

// until polls what (what is not so yet) every 200 ms until it is empty,
// and fails after limit with what is still not so.
func (w *world) until(limit time.Duration, what string, cond func() []string) error {
	ctx, cancel := context.WithTimeout(w.ctx, limit)
	defer cancel()
	for {
		left := cond()
		if len(left) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: not so after %s: %v", what, limit, left)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
