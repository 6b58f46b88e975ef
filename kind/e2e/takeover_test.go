//go:build e2ekind

package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/metadata"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	cloudprovider "k8s.io/cloud-provider"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// takeover is the cluster as the official CCM left it, recorded before
// this CCM is installed.
var takeover struct {
	lbName      string
	ingress     []corev1.LoadBalancerIngress
	providerIDs map[string]string // node → provider ID
	seq         uint64            // the last journal entry before the install
}

const (
	uninitializedTaint = "node.cloudprovider.kubernetes.io/uninitialized"
	excludeLabel       = "node.kubernetes.io/exclude-from-external-load-balancers"
)

// leaveAsTheOfficialCCMDoes makes the cluster and fakecloud what the
// official CCM leaves behind: Nodes initialised (provider ID hcloud://ID,
// its labels, no uninitialized taint), a route per pod CIDR, and for the
// Service "legacy" a load balancer named a<uid> labelled
// hcloud-ccm/service-uid, made in the official CCM's order (create, attach
// to the network, targets, services), with the Service's finalizer and
// status as the official CCM writes them.
func leaveAsTheOfficialCCMDoes(ctx context.Context) error {
	api := cluster.cloud.Client
	nw, _, err := api.Network.Get(ctx, "cluster")
	if err != nil || nw == nil {
		return fmt.Errorf("network cluster: %v", err)
	}
	takeover.providerIDs = map[string]string{}
	var targets []int64
	for name, ip := range cluster.nodes {
		if name == cluster.dedicated {
			if err := initialiseDedicated(ctx, name); err != nil {
				return err
			}
			continue
		}
		srv, _, err := api.Server.GetByName(ctx, name)
		if err != nil || srv == nil {
			return fmt.Errorf("server %s: %v", name, err)
		}
		n, err := cluster.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		n.Spec.ProviderID = fmt.Sprintf("hcloud://%d", srv.ID)
		n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == uninitializedTaint })
		n.Labels["node.kubernetes.io/instance-type"] = srv.ServerType.Name
		n.Labels["topology.kubernetes.io/region"] = srv.Location.Name
		// The zone is the server's datacenter, as its metadata service says.
		zone, err := metadata.NewClient(metadata.WithEndpoint(cluster.cloudURL + "/metadata/" + name + "/hetzner/v1/metadata")).AvailabilityZoneWithContext(ctx)
		if err != nil {
			return fmt.Errorf("zone of %s: %w", name, err)
		}
		n.Labels["topology.kubernetes.io/zone"] = zone
		if _, err := cluster.kube.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("node %s: %w", name, err)
		}
		takeover.providerIDs[name] = n.Spec.ProviderID
		_, cidr, err := net.ParseCIDR(n.Spec.PodCIDR)
		if err != nil {
			return fmt.Errorf("node %s pod CIDR %q: %w", name, n.Spec.PodCIDR, err)
		}
		if err := wait(api.Network.AddRoute(ctx, nw, hcloud.NetworkAddRouteOpts{Route: hcloud.NetworkRoute{Destination: cidr, Gateway: net.ParseIP(ip)}})); err != nil {
			return fmt.Errorf("route %s via %s: %w", cidr, ip, err)
		}
		if _, excluded := n.Labels[excludeLabel]; !excluded {
			targets = append(targets, srv.ID)
		}
	}

	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "legacy", Namespace: "default", Annotations: map[string]string{
		"load-balancer.hetzner.cloud/location": "fsn1", "load-balancer.hetzner.cloud/use-private-ip": "true"}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
	if svc, err = cluster.kube.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		return err
	}
	takeover.lbName = cloudprovider.DefaultLoadBalancerName(svc)
	res, _, err := api.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{Name: takeover.lbName,
		LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"},
		Labels: map[string]string{"hcloud-ccm/service-uid": string(svc.UID)}})
	if err == nil {
		err = api.Action.WaitFor(ctx, res.Action)
	}
	if err != nil {
		return fmt.Errorf("load balancer: %w", err)
	}
	lb := res.LoadBalancer
	if err := wait(api.LoadBalancer.AttachToNetwork(ctx, lb, hcloud.LoadBalancerAttachToNetworkOpts{Network: nw})); err != nil {
		return err
	}
	for _, id := range targets {
		if err := wait(api.LoadBalancer.AddServerTarget(ctx, lb, hcloud.LoadBalancerAddServerTargetOpts{Server: &hcloud.Server{ID: id}, UsePrivateIP: hcloud.Ptr(true)})); err != nil {
			return err
		}
	}
	// The dedicated node: an ip target on its InternalIP, which is its
	// server's address.
	if err := wait(api.LoadBalancer.AddIPTarget(ctx, lb, hcloud.LoadBalancerAddIPTargetOpts{IP: net.ParseIP(cluster.nodes[cluster.dedicated])})); err != nil {
		return err
	}
	nodePort := int(svc.Spec.Ports[0].NodePort)
	if err := wait(api.LoadBalancer.AddService(ctx, lb, hcloud.LoadBalancerAddServiceOpts{Protocol: hcloud.LoadBalancerServiceProtocolTCP,
		ListenPort: hcloud.Ptr(80), DestinationPort: hcloud.Ptr(nodePort), Proxyprotocol: hcloud.Ptr(false),
		HealthCheck: &hcloud.LoadBalancerAddServiceOptsHealthCheck{Protocol: hcloud.LoadBalancerServiceProtocolTCP, Port: hcloud.Ptr(nodePort)}})); err != nil {
		return err
	}
	if lb, _, err = api.LoadBalancer.GetByID(ctx, lb.ID); err != nil {
		return err
	}
	// The official CCM's status: public IPv4, IPv6, then the private IP.
	vip := corev1.LoadBalancerIPModeVIP
	for _, ip := range []string{lb.PublicNet.IPv4.IP.String(), lb.PublicNet.IPv6.IP.String(), lb.PrivateNet[0].IP.String()} {
		takeover.ingress = append(takeover.ingress, corev1.LoadBalancerIngress{IP: ip, IPMode: &vip})
	}
	svc.Finalizers = append(svc.Finalizers, "service.kubernetes.io/load-balancer-cleanup")
	if svc, err = cluster.kube.CoreV1().Services("default").Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
		return err
	}
	svc.Status.LoadBalancer.Ingress = takeover.ingress
	if _, err = cluster.kube.CoreV1().Services("default").UpdateStatus(ctx, svc, metav1.UpdateOptions{}); err != nil {
		return err
	}
	last, err := cluster.cloud.Journal(ctx, fakecloud.JournalFilter{Limit: 1})
	if err != nil || len(last) == 0 {
		return fmt.Errorf("journal: %v", err)
	}
	takeover.seq = last[0].Seq
	return nil
}

// initialiseDedicated makes the dedicated node what the official CCM
// leaves: provider ID hrobot://<number>, the Robot labels, no route.
func initialiseDedicated(ctx context.Context, name string) error {
	n, err := cluster.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	n.Spec.ProviderID = fmt.Sprintf("hrobot://%d", dedicatedNumber)
	n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == uninitializedTaint })
	for k, v := range map[string]string{"node.kubernetes.io/instance-type": "AX41-NVMe", "topology.kubernetes.io/region": "fsn1",
		"topology.kubernetes.io/zone": "fsn1-dc14", "instance.hetzner.cloud/provided-by": "robot"} {
		n.Labels[k] = v
	}
	if _, err := cluster.kube.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("node %s: %w", name, err)
	}
	takeover.providerIDs[name] = n.Spec.ProviderID
	return nil
}

func wait(a *hcloud.Action, _ *hcloud.Response, err error) error {
	if err != nil {
		return err
	}
	return cluster.cloud.Client.Action.WaitFor(context.Background(), a)
}

// checkTakeover: once this CCM has synced the Service and listed the
// routes, it has written nothing to the cloud, initialised no Node again,
// and the Service keeps its address; deleting the Service then removes the
// official CCM's load balancer, so this CCM owns it.
func checkTakeover(t *testing.T, ctx context.Context) {
	if err := fakecloudtest.Wait(3*time.Minute, func() bool { return hasEvent(ctx, "legacy", "EnsuredLoadBalancer") }); err != nil {
		t.Fatalf("the CCM never synced the Service legacy: %v", err)
	}
	if err := fakecloudtest.Wait(2*time.Minute, func() bool {
		routes, err := cluster.cloud.Journal(ctx, fakecloud.JournalFilter{Method: "GET", Template: "/networks/{id}", Since: takeover.seq})
		return err == nil && slices.ContainsFunc(routes, func(e fakecloud.JournalEntry) bool { return strings.HasPrefix(e.UserAgent, "hcloud-ccm/") })
	}); err != nil {
		t.Fatalf("the CCM never listed the routes: %v", err)
	}
	since, err := cluster.cloud.Journal(ctx, fakecloud.JournalFilter{Since: takeover.seq})
	if err != nil {
		t.Fatal(err)
	}
	reads := 0
	for _, e := range since {
		if e.Method != "GET" {
			t.Errorf("the takeover wrote to the cloud: %s %s (%s)", e.Method, e.Path, e.UserAgent)
		} else if strings.HasPrefix(e.UserAgent, "hcloud-ccm/") {
			reads++
		}
	}
	logf("takeover: %d reads by the CCM, no write", reads)
	for name, id := range takeover.providerIDs {
		n, err := cluster.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if n.Spec.ProviderID != id || slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == uninitializedTaint }) {
			t.Errorf("node %s: provider ID %q (was %q), taints %v", name, n.Spec.ProviderID, id, n.Spec.Taints)
		}
	}
	if logs := ccmLogs(t, ctx); strings.Contains(logs, "Initializing node") {
		t.Errorf("the CCM initialised a Node again:\n%s", grepLines(logs, "Initializing node"))
	}
	svc, err := cluster.kube.CoreV1().Services("default").Get(ctx, "legacy", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(svc.Status.LoadBalancer.Ingress, takeover.ingress) {
		t.Errorf("the Service's address changed: %+v, was %+v", svc.Status.LoadBalancer.Ingress, takeover.ingress)
	}
	if err := cluster.kube.CoreV1().Services("default").Delete(ctx, "legacy", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := fakecloudtest.Wait(2*time.Minute, func() bool {
		lbs, err := cluster.cloud.Client.LoadBalancer.All(ctx)
		_, getErr := cluster.kube.CoreV1().Services("default").Get(ctx, "legacy", metav1.GetOptions{})
		return err == nil && len(lbs) == 0 && apierrors.IsNotFound(getErr)
	}); err != nil {
		t.Fatalf("the official CCM's load balancer %s was not deleted with its Service: %v", takeover.lbName, err)
	}
}

func hasEvent(ctx context.Context, object, reason string) bool {
	evs, err := cluster.kube.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + object + ",reason=" + reason})
	return err == nil && len(evs.Items) > 0
}

// ccmLogs are the logs of every CCM pod whose container has started.
func ccmLogs(t *testing.T, ctx context.Context) string {
	t.Helper()
	pods, err := cluster.kube.CoreV1().Pods("kube-system").List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=hcloud-cloud-controller-manager"})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range pods.Items {
		// A container still being created has run nothing and has no log.
		if !slices.ContainsFunc(p.Status.ContainerStatuses, func(c corev1.ContainerStatus) bool { return c.State.Waiting == nil }) {
			continue
		}
		rc, err := cluster.kube.CoreV1().Pods("kube-system").GetLogs(p.Name, &corev1.PodLogOptions{}).Stream(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(&b, rc)
		rc.Close()
	}
	return b.String()
}

func grepLines(s, sub string) string {
	var out []string
	for line := range strings.Lines(s) {
		if strings.Contains(line, sub) {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return strings.Join(out, "\n")
}
