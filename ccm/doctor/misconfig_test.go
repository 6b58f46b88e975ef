package doctor

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cloudproviderapi "k8s.io/cloud-provider/api"
	"k8s.io/utils/ptr"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
	"github.com/hcloudlab/hcloud-ccm/ccm/providerid"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

var uninitialized = corev1.Taint{Key: cloudproviderapi.TaintExternalCloudProvider, Value: "true", Effect: corev1.TaintEffectNoSchedule}

// want is a finding a misconfiguration must produce.
type want struct {
	check   string
	status  Status
	subject string
	message string // a part of it
}

// TestMisconfigurations breaks the healthy fixture one way at a time and
// checks that doctor names what is broken.
func TestMisconfigurations(t *testing.T) {
	tests := []struct {
		name   string
		world  func(*fixture)             // before fakecloud starts
		setup  func(*testing.T, *fixture) // after
		want   []want
		none   []string // checks with no finding at all
		absent []want   // findings that must not be there
	}{
		{name: "invalid token",
			setup: func(_ *testing.T, f *fixture) { f.env["HCLOUD_TOKEN"] = "not-a-token" },
			want:  []want{{"token", Fail, "token", "refuses the token"}}},
		{name: "read-only token",
			world: func(f *fixture) { f.fcOpts.ReadOnlyTokens = []string{"viewer"} },
			setup: func(_ *testing.T, f *fixture) { f.env["HCLOUD_TOKEN"] = "viewer" },
			want:  []want{{"token", Fail, "token", "read-only"}}},
		{name: "rate limit low",
			setup: func(t *testing.T, f *fixture) {
				if err := f.fc.SetRateLimit(150, -1); err != nil {
					t.Fatal(err)
				}
			},
			want: []want{{"rate-limit", Warn, "project", "below HCLOUD_BUDGET_RESERVE=200"}}},
		{name: "node without server",
			setup: func(_ *testing.T, f *fixture) {
				f.nodes = append(f.nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "ghost"}, Spec: corev1.NodeSpec{Taints: []corev1.Taint{uninitialized}}})
			},
			want: []want{{"node", Fail, "node/ghost", "no server is named like the Node"}, {"taint", Fail, "node/ghost", "no server matches it"}}},
		{name: "node name with a domain",
			world: func(f *fixture) { f.world.Servers = append(f.world.Servers, fakecloud.SeedServer{Name: "node-3"}) },
			setup: func(_ *testing.T, f *fixture) {
				f.nodes = append(f.nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-3.example.com"}, Spec: corev1.NodeSpec{Taints: []corev1.Taint{uninitialized}}})
			},
			want: []want{{"node", Fail, "node/node-3.example.com", "server node-3 (ID"}}},
		{name: "server name with a domain and capitals",
			world: func(f *fixture) {
				f.world.Servers = append(f.world.Servers, fakecloud.SeedServer{Name: "Node-3.example.com"})
			},
			setup: func(_ *testing.T, f *fixture) {
				f.nodes = append(f.nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-3"}, Spec: corev1.NodeSpec{Taints: []corev1.Taint{uninitialized}}})
			},
			want: []want{{"node", Fail, "node/node-3", "server Node-3.example.com (ID"}}},
		{name: "provider ID of a deleted server",
			setup: func(t *testing.T, f *fixture) {
				if err := f.fc.Apply(fakecloud.Event{Type: "delete_server", ServerName: "node-2"}); err != nil {
					t.Fatal(err)
				}
			},
			want: []want{{"node", Fail, "node/node-2", "names no server of the project"}, {"load-balancer", Warn, "load-balancer/web", "does not exist"}}},
		{name: "two nodes on one server",
			setup: func(_ *testing.T, f *fixture) {
				f.nodes = append(f.nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1-old"}, Spec: corev1.NodeSpec{ProviderID: f.node("node-1").Spec.ProviderID}})
			},
			want: []want{{"node", Fail, "server/node-1", "Nodes node-1, node-1-old all map to server node-1"}}},
		{name: "node IP not the server's",
			setup: func(_ *testing.T, f *fixture) {
				n := f.node("node-2")
				n.Annotations[cloudproviderapi.AnnotationAlphaProvidedIPAddr] = "192.0.2.10"
				n.Spec.Taints = []corev1.Taint{uninitialized}
			},
			want: []want{{"node-ip", Fail, "node/node-2", "--node-ip 192.0.2.10 is not among"}, {"taint", Fail, "node/node-2", "192.0.2.10"}}},
		{name: "node address not the server's",
			setup: func(_ *testing.T, f *fixture) {
				f.node("node-1").Status.Addresses[1].Address = "192.0.2.11"
			},
			want: []want{{"node-ip", Warn, "node/node-1", "ExternalIP 192.0.2.11 is not an address of server node-1"}}},
		{name: "external IPv6 from the annotation",
			setup: func(_ *testing.T, f *fixture) {
				f.env["HCLOUD_INSTANCES_ADDRESS_FAMILY"] = "dualstack"
				n := f.node("node-2")
				n.Annotations["instance.hetzner.cloud/external-ipv6"] = "2001:db8::5"
				n.Annotations[cloudproviderapi.AnnotationAlphaProvidedIPAddr] = "2001:db8::5"
				n.Status.Addresses = append(n.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "2001:db8::5"})
			},
			absent: []want{{"node-ip", Fail, "node/node-2", ""}, {"node-ip", Warn, "node/node-2", ""}}},
		{name: "private node IP without HCLOUD_NETWORK",
			setup: func(_ *testing.T, f *fixture) { delete(f.env, "HCLOUD_NETWORK") },
			want:  []want{{"node-ip", Fail, "node/node-1", "--node-ip 10.0.0.2"}}},
		{name: "node initialising",
			setup: func(_ *testing.T, f *fixture) {
				n := f.node("node-1")
				n.Spec.ProviderID, n.Spec.Taints, n.CreationTimestamp = "", []corev1.Taint{uninitialized}, metav1.NewTime(now.Add(-30*time.Second))
			},
			want: []want{{"taint", Warn, "node/node-1", "registered 30s ago"}}},
		{name: "node never initialised",
			setup: func(_ *testing.T, f *fixture) {
				n := f.node("node-1")
				n.Spec.ProviderID, n.Spec.Taints = "", []corev1.Taint{uninitialized}
			},
			want: []want{{"taint", Fail, "node/node-1", "still uninitialized after 1h0m0s"}}},
		{name: "kubelet without cloud provider",
			setup: func(_ *testing.T, f *fixture) { f.node("node-2").Spec.ProviderID = "" },
			want:  []want{{"kubelet", Fail, "node/node-2", "--cloud-provider=external"}}},
		{name: "network missing",
			setup: func(_ *testing.T, f *fixture) { f.env["HCLOUD_NETWORK"] = "k9s" },
			want:  []want{{"network", Fail, "network/k9s", "names no network"}}},
		{name: "server not attached",
			world: func(f *fixture) { f.world.Servers = append(f.world.Servers, fakecloud.SeedServer{Name: "node-3"}) },
			setup: func(_ *testing.T, f *fixture) {
				f.nodes = append(f.nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-3"}, Spec: corev1.NodeSpec{ProviderID: providerid.FromServerID(f.servers["node-3"].ID)}})
			},
			want: []want{{"network", Fail, "server/node-3", "not attached to network k8s"}}},
		{name: "cluster CIDR outside the network",
			setup: func(_ *testing.T, f *fixture) { f.options.ClusterCIDR = "192.168.0.0/16" },
			want:  []want{{"cluster-cidr", Fail, "192.168.0.0/16", "outside network k8s's IP range 10.0.0.0/8"}}},
		{name: "routes off: the cluster CIDR is the CNI's",
			setup: func(_ *testing.T, f *fixture) {
				f.options.ClusterCIDR = "192.168.0.0/16"
				f.env["HCLOUD_NETWORK_ROUTES_ENABLED"] = "false"
			},
			none: []string{"cluster-cidr", "route"}},
		{name: "pod CIDR in a subnet",
			setup: func(_ *testing.T, f *fixture) { f.node("node-2").Spec.PodCIDR = "10.0.0.128/25" },
			want:  []want{{"cluster-cidr", Fail, "10.0.0.128/25", "overlaps subnet 10.0.0.0/24"}, {"route", Warn, "node/node-2", "no route to pod CIDR 10.0.0.128/25"}}},
		{name: "stale route",
			world: func(f *fixture) {
				f.world.Networks[0].Routes = append(f.world.Networks[0].Routes, schema.NetworkRoute{Destination: "10.244.9.0/24", Gateway: "10.0.0.99"})
			},
			want: []want{{"route", Warn, "route/10.244.9.0/24", "route to 10.244.9.0/24 via 10.0.0.99: 10.0.0.99 is no Node's IP in network k8s, and no server holds it: the route belongs to nobody"}}},
		{name: "another cluster's route",
			world: func(f *fixture) {
				f.world.Servers = append(f.world.Servers, fakecloud.SeedServer{Name: "other-1", Networks: []fakecloud.SeedServerNetwork{{Network: "k8s", IP: "10.0.0.50"}}})
				f.world.Networks[0].Routes = append(f.world.Networks[0].Routes, schema.NetworkRoute{Destination: "10.246.0.0/24", Gateway: "10.0.0.50"})
			},
			want: []want{{"route", Warn, "route/10.246.0.0/24", "10.0.0.50 is server other-1's IP in network k8s, no Node's: another cluster's or made by hand, and the CCM leaves it alone"}}},
		{name: "more nodes than routes",
			setup: func(_ *testing.T, f *fixture) {
				for i := range 100 {
					f.nodes = append(f.nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("extra-%d", i)},
						Spec: corev1.NodeSpec{ProviderID: "hcloud://1", PodCIDR: fmt.Sprintf("10.245.%d.0/24", i)}})
				}
			},
			want: []want{{"route", Fail, "network/k8s", "102 Nodes need a route each"}}},
		{name: "bad annotation",
			setup: func(_ *testing.T, f *fixture) {
				f.services = append(f.services, lbService("api", "uid-api", "health-check-interval", "soon"))
			},
			want: []want{{"service", Fail, "service/default/api", "health-check-interval"}}},
		{name: "unknown load balancer type",
			setup: func(_ *testing.T, f *fixture) {
				f.services = append(f.services, lbService("api", "uid-api", "type", "lb99"))
			},
			want: []want{{"service", Fail, "service/default/api", `type "lb99" does not exist`}}},
		{name: "deprecated load balancer types",
			setup: func(t *testing.T, f *fixture) {
				for typ, after := range map[string]time.Duration{"lb11": -time.Hour, "lb21": 30 * 24 * time.Hour} {
					if err := f.fc.Apply(fakecloud.Event{Type: "deprecate_load_balancer_type", LoadBalancerType: typ,
						Announced: now.Add(-90 * 24 * time.Hour), UnavailableAfter: now.Add(after)}); err != nil {
						t.Fatal(err)
					}
				}
				f.services = append(f.services, lbService("api", "uid-api", "location", "fsn1"),
					lbService("big", "uid-big", "location", "fsn1", "type", "lb21"))
			},
			want: []want{{"service", Fail, "service/default/api", "type lb11 can no longer be ordered: its load balancer cannot be created"},
				{"service", Warn, "service/default/web", "type lb11 can no longer be ordered: the load balancer goes on"},
				{"service", Warn, "service/default/big", "type lb21 is deprecated and can be ordered until 2026-03-31"}}},
		{name: "unknown location",
			setup: func(_ *testing.T, f *fixture) {
				f.services = append(f.services, lbService("api", "uid-api", "location", "mars1"))
			},
			want: []want{{"service", Fail, "service/default/api", `location "mars1" does not exist`}}},
		{name: "location outside the network's zone",
			setup: func(_ *testing.T, f *fixture) {
				f.services = append(f.services, lbService("api", "uid-api", "location", "ash"))
			},
			want: []want{{"service", Fail, "service/default/api", "network zone us-east, but network k8s is in eu-central"}}},
		{name: "missing certificate",
			world: func(f *fixture) {
				f.world.Certificates = []fakecloud.SeedCertificate{{Name: "shop", Type: "managed", DomainNames: []string{"shop.example.com"}}}
			},
			setup: func(_ *testing.T, f *fixture) {
				f.services = append(f.services, lbService("api", "uid-api", "protocol", "https", "http-certificates", "shop,www"))
			},
			want: []want{{"service", Fail, "service/default/api", `certificate "www"`}}},
		{name: "missing certificate of one port",
			world: func(f *fixture) {
				f.world.Certificates = []fakecloud.SeedCertificate{{Name: "shop", Type: "managed", DomainNames: []string{"shop.example.com"}}}
			},
			setup: func(_ *testing.T, f *fixture) {
				f.services = append(f.services, lbService("api", "uid-api", "port-80.protocol", "https", "port-80.http-certificates", "www"))
			},
			want: []want{{"service", Fail, "service/default/api", `certificate "www" of load-balancer.hetzner.cloud/port-80.http-certificates does not exist`}}},
		{name: "per-port option on a port the Service lacks",
			setup: func(_ *testing.T, f *fixture) {
				f.services = append(f.services, lbService("api", "uid-api", "port-443.protocol", "https"))
			},
			want: []want{{"service", Fail, "service/default/api", "port-443.protocol"}}},
		{name: "source ranges no load balancer enforces",
			setup: func(_ *testing.T, f *fixture) {
				svc := lbService("api", "uid-api")
				svc.Spec.LoadBalancerSourceRanges = []string{"203.0.113.0/24"}
				f.services = append(f.services, svc)
			},
			want: []want{{"service", Warn, "service/default/api", "spec.loadBalancerSourceRanges (203.0.113.0/24) is not enforced"}}},
		{name: "a bad Service being deleted is not judged",
			setup: func(_ *testing.T, f *fixture) {
				svc := lbService("api", "uid-api", "health-check-interval", "soon")
				svc.DeletionTimestamp = &metav1.Time{Time: time.Now()}
				f.services = append(f.services, svc)
			},
			absent: []want{{"service", Fail, "service/default/api", ""}}},
		{name: "address pending",
			setup: func(_ *testing.T, f *fixture) { f.services[0].Status.LoadBalancer.Ingress = nil },
			want:  []want{{"service", Warn, "service/default/web", "no address after"}}},
		{name: "orphan load balancer",
			setup: func(_ *testing.T, f *fixture) { f.services = nil },
			want:  []want{{"load-balancer", Warn, "load-balancer/web", loadbalancer.ServiceUIDLabel + "=" + webUID}}},
		{name: "load balancer of a class no longer served",
			setup:  func(_ *testing.T, f *fixture) { f.env["HCLOUD_LOAD_BALANCERS_SERVE_WITHOUT_CLASS"] = "false" },
			want:   []want{{"load-balancer", Warn, "load-balancer/web", "made for Service default/web, whose class (none) this CCM no longer serves"}},
			absent: []want{{"load-balancer", Warn, "load-balancer/web", "an orphan"}}},
		{name: "a Service of the class served is judged",
			setup: func(_ *testing.T, f *fixture) {
				svc := lbService("api", "uid-api", "health-check-interval", "soon")
				svc.Spec.LoadBalancerClass = ptr.To("example.com/hcloud")
				f.services = append(f.services, svc)
				f.env["HCLOUD_LOAD_BALANCERS_CLASS"] = "example.com/hcloud"
			},
			want: []want{{"service", Fail, "service/default/api", "health-check-interval"}}},
		{name: "externally managed load balancer missing",
			setup: func(_ *testing.T, f *fixture) {
				f.services = append(f.services, lbService("api", "uid-api", "name", "nowhere", "externally-managed", "true"))
			},
			want: []want{{"service", Fail, "service/default/api", "no load balancer is named nowhere"}}},
		{name: "externally managed load balancer of another Service",
			setup: func(_ *testing.T, f *fixture) {
				f.services = append(f.services, lbService("api", "uid-api", "name", "web", "externally-managed", "true"))
			},
			want: []want{{"service", Fail, "service/default/api", "belongs to the Service with UID " + webUID}}},
		{name: "certificate Secrets the CCM may not read",
			setup: func(_ *testing.T, f *fixture) {
				svc := lbService("api", "uid-api", "protocol", "https", "http-certificate-secrets", "api-tls")
				svc.Namespace = "shop"
				f.services = append(f.services, svc)
			},
			want: []want{{"secret", Fail, "namespace/shop", "may not get, list, watch Secrets in shop"}}},
		{name: "certificate Secrets the CCM may read",
			setup: func(_ *testing.T, f *fixture) {
				svc := lbService("api", "uid-api", "protocol", "https", "http-certificate-secrets", "api-tls")
				svc.Namespace = "shop"
				f.services = append(f.services, svc)
				f.secretsReadable = []string{"shop"}
			},
			want:   []want{{"secret", OK, "namespace/shop", "may read the TLS Secrets that Services api name"}},
			absent: []want{{"secret", Fail, "namespace/shop", ""}}},
		{name: "load balancers disabled",
			setup: func(_ *testing.T, f *fixture) { f.env["HCLOUD_LOAD_BALANCERS_ENABLED"] = "false" },
			want:  []want{{"service", Warn, "service/default/web", "HCLOUD_LOAD_BALANCERS_ENABLED=false"}}},
		{name: "CCM not installed",
			setup: func(_ *testing.T, f *fixture) {
				f.deployment = nil
				delete(f.objects, "Lease")
				f.node("node-1").Spec.Taints = []corev1.Taint{uninitialized}
			},
			want: []want{{"ccm", Fail, "namespace/kube-system", "no Deployment or DaemonSet"}, {"taint", Fail, "node/node-1", "not installed"}}},
		{name: "CCM outside the cluster",
			setup: func(_ *testing.T, f *fixture) { f.deployment = nil },
			want:  []want{{"ccm", Warn, "namespace/kube-system", "it runs elsewhere"}}},
		{name: "CCM not ready",
			setup: func(_ *testing.T, f *fixture) { f.deployment.Status.ReadyReplicas = 0 },
			want:  []want{{"ccm", Fail, "deployment/kube-system/hcloud-cloud-controller-manager", "0 of 2 replicas ready"}}},
		{name: "secret missing",
			setup: func(_ *testing.T, f *fixture) { delete(f.objects, "Secret") },
			want:  []want{{"ccm", Fail, "deployment/kube-system/hcloud-cloud-controller-manager", "Secret kube-system/hcloud, which does not exist"}}},
		{name: "service account missing",
			setup: func(_ *testing.T, f *fixture) { delete(f.objects, "ServiceAccount") },
			want:  []want{{"rbac", Fail, "serviceaccount/kube-system/hcloud-cloud-controller-manager", "does not exist"}}},
		{name: "cluster role binding missing",
			setup: func(_ *testing.T, f *fixture) { delete(f.objects, "ClusterRoleBinding") },
			want:  []want{{"rbac", Fail, "serviceaccount/kube-system/hcloud-cloud-controller-manager", "no ClusterRoleBinding"}}},
		{name: "cluster role missing",
			setup: func(_ *testing.T, f *fixture) { delete(f.objects, "ClusterRole") },
			want:  []want{{"rbac", Fail, "clusterrolebinding/system:hcloud-cloud-controller-manager:restricted", "does not exist"}}},
		{name: "cluster-admin binding of the official CCM up to v1.27",
			setup: func(_ *testing.T, f *fixture) {
				b := f.objects["ClusterRoleBinding"].(*rbacv1.ClusterRoleBinding).DeepCopy()
				b.Name, b.RoleRef.Name = "system:hcloud-cloud-controller-manager", "cluster-admin"
				f.objects["ClusterRoleBinding"] = b
			},
			want: []want{{"rbac", Warn, "clusterrolebinding/system:hcloud-cloud-controller-manager", "cluster admin"}}},
		{name: "lease not renewed",
			setup: func(_ *testing.T, f *fixture) {
				l := f.objects["Lease"].(*coordinationv1.Lease)
				l.Spec.RenewTime = &metav1.MicroTime{Time: now.Add(-time.Minute)}
			},
			want: []want{{"lease", Fail, "lease/kube-system/cloud-controller-manager", "renewed 1m0s ago"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture()
			if tt.world != nil {
				tt.world(f)
			}
			f.start(t)
			if tt.setup != nil {
				tt.setup(t, f)
			}
			r := f.run(t)
			for _, w := range tt.want {
				if !has(r, w.check, w.status, w.subject, w.message) {
					t.Errorf("no %s %s finding on %s with %q in:\n%s", w.status, w.check, w.subject, w.message, dump(r))
				}
			}
			for _, w := range tt.absent {
				if has(r, w.check, w.status, w.subject, w.message) {
					t.Errorf("a %s %s finding on %s in:\n%s", w.status, w.check, w.subject, dump(r))
				}
			}
			for _, f := range r.Findings {
				if slices.Contains(tt.none, f.Check) {
					t.Errorf("a finding of %s: %+v", f.Check, f)
				}
			}
			if r.Requests > 8 {
				t.Errorf("%d requests, want at most 8", r.Requests)
			}
		})
	}
}
