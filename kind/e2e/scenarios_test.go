//go:build e2ekind

package e2e

import (
	"context"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// TestScenarios runs in order on the one cluster: each step leaves it as
// the next expects.
func TestScenarios(t *testing.T) {
	ctx := context.Background()
	worker, worker2 := cluster.name+"-worker", cluster.name+"-worker2"

	step(t, "helm upgrade from the official chart: the new pods start beside the official one and act only once it is gone", func(t *testing.T) {
		checkUpgrade(t, ctx)
	})

	step(t, "takeover from the official CCM: no write, no Node initialised again, the Service keeps its address", func(t *testing.T) {
		checkTakeover(t, ctx)
	})

	step(t, "a Node that registers again after the switch is initialised by this CCM, and routed", func(t *testing.T) {
		rejoin(t, ctx, worker2)
	})

	step(t, "routes for each pod CIDR", func(t *testing.T) {
		want := map[string]string{}
		for name, ip := range cluster.nodes {
			if name == cluster.dedicated {
				continue // not in the cloud network: no route
			}
			n, err := cluster.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want[n.Spec.PodCIDR] = ip
		}
		if err := fakecloudtest.Wait(2*time.Minute, func() bool {
			nw, _, err := cluster.cloud.Client.Network.Get(ctx, "cluster")
			if err != nil || nw == nil || len(nw.Routes) != len(want) {
				return false
			}
			for _, r := range nw.Routes {
				if want[r.Destination.String()] != r.Gateway.String() {
					return false
				}
			}
			return true
		}); err != nil {
			t.Fatalf("routes %v not in the network: %v", want, err)
		}
		// The fabric copies them into every node but their own.
		for name, ip := range cluster.nodes {
			if err := fakecloudtest.Wait(time.Minute, func() bool { return nodeRoutes(name, ip, want) }); err != nil {
				t.Fatalf("node %s lacks the routes of the other nodes' pod CIDRs %v: %v", name, want, err)
			}
		}
	})

	step(t, "pods scheduled on both workers", func(t *testing.T) {
		if err := deployEcho(ctx); err != nil {
			t.Fatalf("Deployment web not ready: %v", err)
		}
		pods, err := echoPods(ctx)
		if err != nil || len(pods) != 2 || !slices.Contains(slices.Collect(maps.Values(pods)), worker) || !slices.Contains(slices.Collect(maps.Values(pods)), worker2) {
			t.Fatalf("pods %v (%v), want one on each worker", pods, err)
		}
	})

	step(t, "a pod resolves a record written through the API, CoreDNS forwarding its zone to fakecloud's nameserver", func(t *testing.T) {
		podResolvesTheAPIsRecords(t, ctx)
	})

	step(t, "the token Secret rotates and the old token is revoked: the CCM goes on without a restart (while every node is up: a rollout needs a free node, the CCM runs on the host network)", func(t *testing.T) {
		tokenRotates(t, ctx)
	})

	step(t, "server labels reach a Node as labels and a taint, and go with the server's, once helm upgrade turns the sync on", func(t *testing.T) {
		serverLabelsOnNodes(t, ctx, worker)
	})

	step(t, "a LoadBalancer Service survives the CCM pod being deleted mid-way", func(t *testing.T) {
		// Checks every 3 s (the API's least), so targets turn healthy soon
		// after kube-proxy opens the node port.
		// Location and private IPs are the Service's, as a user sets them:
		// the chart is installed with no load balancer default.
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default",
			Annotations: map[string]string{"load-balancer.hetzner.cloud/health-check-interval": "3s", "load-balancer.hetzner.cloud/health-check-timeout": "2s",
				"load-balancer.hetzner.cloud/location": "fsn1", "load-balancer.hetzner.cloud/use-private-ip": "true"}}, Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
		// The CCM's create is held 8 s before fakecloud serves it; the CCM
		// is killed meanwhile, so the load balancer appears after its
		// creator is gone, and the new CCM must find it, not make another.
		if err := cluster.cloud.AddFault(ctx, fakecloud.Rule{Name: "create held while the CCM dies", Method: "POST", Path: "/load_balancers",
			Latency: fakecloud.Duration(8 * time.Second), Count: 1}); err != nil {
			t.Fatal(err)
		}
		defer cluster.cloud.ClearFaults(ctx)
		if _, err := cluster.kube.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := fakecloudtest.Wait(time.Minute, func() bool { n, err := cluster.cloud.FaultHits(ctx); return err == nil && n > 0 }); err != nil {
			t.Fatalf("the CCM sent no create: %v", err)
		}
		pods, err := cluster.kube.CoreV1().Pods("kube-system").List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=hcloud-cloud-controller-manager"})
		if err != nil || len(pods.Items) == 0 {
			t.Fatalf("no CCM pod: %v", err)
		}
		before := leaseHolder(ctx)
		for _, p := range pods.Items {
			if err := cluster.kube.CoreV1().Pods("kube-system").Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))}); err != nil {
				t.Fatal(err)
			}
		}
		// A new process leads once the lease is free: given back by a
		// leader that got SIGTERM, or run out. The identity is the host
		// name (the node's, with the host network) and a per-process UID.
		start := time.Now()
		if err := fakecloudtest.Wait(3*time.Minute, func() bool { h := leaseHolder(ctx); return h != "" && h != before }); err != nil {
			t.Fatalf("no new CCM process took the lease from %s: %v", before, err)
		}
		logf("a new CCM pod leads %s after the old ones were deleted", time.Since(start).Round(time.Millisecond))
		if err := fakecloudtest.Wait(3*time.Minute, func() bool {
			s, err := cluster.kube.CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{})
			return err == nil && len(s.Status.LoadBalancer.Ingress) > 0
		}); err != nil {
			t.Fatalf("no status after the CCM pod was replaced: %v", err)
		}
		// kubeadm labels the control plane exclude-from-external-load-balancers.
		workers := len(cluster.nodes) - 1
		if err := fakecloudtest.Wait(time.Minute, func() bool {
			lbs, err := cluster.cloud.Client.LoadBalancer.All(ctx)
			return err == nil && len(lbs) == 1 && len(lbs[0].Targets) == workers
		}); err != nil {
			lbs, _ := cluster.cloud.Client.LoadBalancer.All(ctx)
			t.Fatalf("%d load balancers, want 1 with a target per worker (%d): %v", len(lbs), workers, err)
		}
	})

	var pods map[string]string
	step(t, "the load balancer carries traffic to every pod", func(t *testing.T) {
		var err error
		if pods, err = echoPods(ctx); err != nil {
			t.Fatal(err)
		}
		if err := reachesAll("http://"+ingress(ctx, "web")+":80/", pods); err != nil {
			t.Fatal(err)
		}
	})

	step(t, "the dedicated node carries the load balancer's traffic through its ip target", func(t *testing.T) {
		throughDedicated(t, ctx, pods)
	})

	step(t, "a port change moves the load balancer's listener", func(t *testing.T) {
		svc, err := cluster.kube.CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		svc.Spec.Ports[0].Port = 8081
		if _, err := cluster.kube.CoreV1().Services("default").Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := reachesAll("http://"+ingress(ctx, "web")+":8081/", pods); err != nil {
			t.Fatal(err)
		}
		if err := fakecloudtest.Wait(time.Minute, func() bool { _, err := served("http://" + ingress(ctx, "web") + ":80/"); return err != nil }); err != nil {
			t.Fatalf("port 80 still answers: %v", err)
		}
	})

	step(t, "a worker leaving the load balancer; its pod is still reached through a route", func(t *testing.T) {
		exclude := "node.kubernetes.io/exclude-from-external-load-balancers"
		label(t, ctx, worker2, exclude, "true")
		if err := fakecloudtest.Wait(2*time.Minute, func() bool { return targetNames(ctx) == worker }); err != nil {
			t.Fatalf("targets %q, want only %s: %v", targetNames(ctx), worker, err)
		}
		// Traffic enters only through worker; the pod on worker2 answers
		// through worker's route to worker2's pod CIDR.
		if err := reachesAll("http://"+ingress(ctx, "web")+":8081/", pods); err != nil {
			t.Fatal(err)
		}
		label(t, ctx, worker2, exclude, "")
		if err := fakecloudtest.Wait(2*time.Minute, func() bool { return targetNames(ctx) == worker+","+worker2 }); err != nil {
			t.Fatalf("targets %q, want both workers back: %v", targetNames(ctx), err)
		}
	})

	step(t, "externalTrafficPolicy Local: only the pod's node is healthy, and every request reaches the pod", func(t *testing.T) {
		localTraffic(t, ctx, 8081)
	})

	step(t, "a node marked for removal by the cluster autoscaler drains with no failed request", func(t *testing.T) {
		autoscalerDrain(t, ctx, 8081, worker2)
	})

	step(t, "an https port beside the http one serves a Secret's certificate, and the renewed one after it", func(t *testing.T) {
		secretCertificate(t, ctx, 8081)
	})

	step(t, "a Service on a Primary IP carries traffic at its address, and again once deleted and created anew", func(t *testing.T) {
		primaryIPTraffic(t, ctx)
	})

	step(t, "target-address-family: a Service's targets on the families its Nodes list, the rest told", func(t *testing.T) {
		ipv6Targets(t, ctx)
	})

	step(t, "the Service's condition says every load balancer target is healthy, read every 5 s (while every node is up: a rollout needs a free node)", func(t *testing.T) {
		healthReadOften(t, ctx)
	})

	step(t, "a powered-off server's node gets the shutdown taint, and loses it powered on; its target's health shows on the Service and comes back", func(t *testing.T) {
		off := time.Now()
		if err := cluster.cloud.Apply(ctx, fakecloud.Event{Type: "power_off_server", ServerName: worker}); err != nil {
			t.Fatal(err)
		}
		docker(t, "stop", worker) // the machine is off: its kubelet stops posting
		waitWebHealth(t, ctx, metav1.ConditionFalse, loadbalancer.ReasonSomeTargetsUnhealthy, worker+" (port ")
		waitWebEvent(t, ctx, "LoadBalancerTargetsUnhealthy", worker+" (port ", off)
		if err := fakecloudtest.Wait(3*time.Minute, func() bool { return tainted(ctx, worker, "node.cloudprovider.kubernetes.io/shutdown") }); err != nil {
			t.Fatalf("no shutdown taint: %v", err)
		}
		if err := cluster.cloud.Apply(ctx, fakecloud.Event{Type: "power_on_server", ServerName: worker}); err != nil {
			t.Fatal(err)
		}
		docker(t, "start", worker)
		if err := metadataToFakeCloud(worker); err != nil { // the restart emptied the node's iptables
			t.Fatal(err)
		}
		if err := fakecloudtest.Wait(3*time.Minute, func() bool { return !tainted(ctx, worker, "node.cloudprovider.kubernetes.io/shutdown") }); err != nil {
			t.Fatalf("shutdown taint not removed: %v", err)
		}
		waitWebHealth(t, ctx, metav1.ConditionTrue, loadbalancer.ReasonAllTargetsHealthy, "healthy")
		waitWebEvent(t, ctx, "LoadBalancerTargetsHealthy", "healthy again", off)
		// The CCM replica on the rebooted node (if one was there) starts
		// again, so the next step does not depend on where the leader ran.
		if err := fakecloudtest.Wait(3*time.Minute, func() bool { return ccmReplicasReady(ctx) }); err != nil {
			t.Fatalf("CCM replicas not all ready after the power-on: %v", err)
		}
	})

	step(t, "a stopped worker whose server is deleted loses its Node", func(t *testing.T) {
		docker(t, "stop", worker2)
		if err := cluster.cloud.Apply(ctx, fakecloud.Event{Type: "delete_server", ServerName: worker2}); err != nil {
			t.Fatal(err)
		}
		if err := fakecloudtest.Wait(3*time.Minute, func() bool {
			_, err := cluster.kube.CoreV1().Nodes().Get(ctx, worker2, metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		}); err != nil {
			t.Fatalf("Node %s not deleted: %v", worker2, err)
		}
		if err := fakecloudtest.Wait(2*time.Minute, func() bool { return targetNames(ctx) == worker }); err != nil {
			t.Fatalf("load balancer targets %q after the Node went, want only %s: %v", targetNames(ctx), worker, err)
		}
	})

	step(t, "helm rollback to the official chart: this CCM stops before the official one starts", func(t *testing.T) {
		checkRollback(t, ctx)
	})
}

// ccmReplicasReady tells whether every replica of the CCM's Deployment is
// ready.
func ccmReplicasReady(ctx context.Context) bool {
	d, err := cluster.kube.AppsV1().Deployments("kube-system").Get(ctx, "hcloud-cloud-controller-manager", metav1.GetOptions{})
	return err == nil && d.Spec.Replicas != nil && d.Status.ReadyReplicas == *d.Spec.Replicas && d.Status.UpdatedReplicas == *d.Spec.Replicas
}

// leaseHolder is the identity holding the CCM's leader election Lease.
func leaseHolder(ctx context.Context) string {
	l, err := cluster.kube.CoordinationV1().Leases("kube-system").Get(ctx, "cloud-controller-manager", metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// step runs one scenario and prints its duration.
func step(t *testing.T, name string, f func(t *testing.T)) {
	start := time.Now()
	ok := t.Run(name, f)
	t.Logf("%s: %s (%v)", name, time.Since(start).Round(time.Millisecond), map[bool]string{true: "passed", false: "failed"}[ok])
	if !ok {
		t.FailNow()
	}
}

func tainted(ctx context.Context, node, key string) bool {
	n, err := cluster.kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	return err == nil && slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == key })
}

// targetNames lists the servers the load balancer targets, sorted and
// comma-separated.
func targetNames(ctx context.Context) string {
	lbs, err := cluster.cloud.Client.LoadBalancer.All(ctx)
	if err != nil || len(lbs) != 1 {
		return fmt.Sprintf("(%d load balancers, %v)", len(lbs), err)
	}
	var names []string
	for _, tg := range lbs[0].Targets {
		if tg.Server != nil && tg.Server.Server != nil {
			s, _, err := cluster.cloud.Client.Server.GetByID(ctx, tg.Server.Server.ID)
			if err == nil && s != nil {
				names = append(names, s.Name)
			}
		}
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}

// label sets a node label, or removes it when value is "".
func label(t *testing.T, ctx context.Context, node, key, value string) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := cluster.kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if value == "" {
			delete(n.Labels, key)
		} else {
			n.Labels[key] = value
		}
		_, err = cluster.kube.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// nodeRoutes reports whether a node routes every pod CIDR but its own
// through the node that holds it.
func nodeRoutes(node, ip string, want map[string]string) bool {
	have, err := podRoutes(context.Background(), node)
	if err != nil {
		return false
	}
	for cidr, gw := range want {
		if gw != ip && have[cidr] != gw {
			return false
		}
	}
	return true
}

func docker(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("docker", args...).CombinedOutput(); err != nil {
		t.Fatalf("docker %v: %v: %s", args, err, out)
	}
}
