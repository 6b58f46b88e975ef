package doctor

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	k8stesting "k8s.io/client-go/testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	cloudproviderapi "k8s.io/cloud-provider/api"
	"k8s.io/utils/ptr"

	"github.com/hcloudlab/hcloud-ccm/ccm"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
	"github.com/hcloudlab/hcloud-ccm/ccm/providerid"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// now is the fixtures' clock.
var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// webUID is the UID of the Service web, which owns load balancer web.
const webUID = "0b1c2d3e-1111-2222-3333-444455556666"

// healthyWorld is a network k8s (10.0.0.0/8 with subnet 10.0.0.0/24 in
// eu-central) with a route to each pod CIDR, servers node-1 and node-2
// in it, and the load balancer of Service default/web.
func healthyWorld() fakecloud.World {
	return fakecloud.World{
		Networks: []fakecloud.SeedNetwork{{Name: "k8s", IPRange: "10.0.0.0/8",
			Subnets: []schema.NetworkSubnet{{Type: "cloud", IPRange: "10.0.0.0/24", NetworkZone: "eu-central"}},
			Routes: []schema.NetworkRoute{{Destination: "10.244.1.0/24", Gateway: "10.0.0.2"},
				{Destination: "10.244.2.0/24", Gateway: "10.0.0.3"}}}},
		Servers: []fakecloud.SeedServer{
			{Name: "node-1", Networks: []fakecloud.SeedServerNetwork{{Network: "k8s", IP: "10.0.0.2"}}},
			{Name: "node-2", Networks: []fakecloud.SeedServerNetwork{{Network: "k8s", IP: "10.0.0.3"}}},
		},
		LoadBalancers: []fakecloud.SeedLoadBalancer{{Name: "web", Location: "fsn1", Network: "k8s",
			Labels:  map[string]string{loadbalancer.ServiceUIDLabel: webUID},
			Targets: []fakecloud.SeedTarget{{Server: "node-1"}, {Server: "node-2"}}}},
	}
}

// fixture is a cluster and its cloud, healthy until a test breaks them.
// Tests edit the world before start, and the Kubernetes objects and
// environment before run.
type fixture struct {
	world   fakecloud.World
	fcOpts  fakecloud.Options
	env     map[string]string
	options Options

	fc      *fakecloud.Server
	client  *hcloud.Client // for setting up, not counted
	servers map[string]*hcloud.Server

	nodes      []*corev1.Node
	services   []*corev1.Service
	deployment *appsv1.Deployment
	objects    map[string]runtime.Object // the CCM's Secret, RBAC and Lease, by kind
	// secretsReadable are the namespaces where the apiserver's
	// SubjectAccessReviews let the CCM read Secrets.
	secretsReadable []string
}

func newFixture() *fixture {
	return &fixture{world: healthyWorld(), fcOpts: fakecloud.Options{IDSeed: 1},
		env: map[string]string{"HCLOUD_TOKEN": fakecloud.DefaultToken, "HCLOUD_NETWORK": "k8s"}}
}

// start seeds fakecloud and makes the healthy Kubernetes objects.
func (f *fixture) start(t *testing.T) *fixture {
	t.Helper()
	f.fc = fakecloud.New(f.fcOpts)
	if err := f.fc.Seed(f.world); err != nil {
		t.Fatal(err)
	}
	url := fakecloudtest.Serve(t, f.fc)
	f.env["HCLOUD_ENDPOINT"] = url + "/v1"
	f.client = fakecloudtest.Client(url, fakecloud.DefaultToken)
	servers, err := f.client.Server.All(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	f.servers = map[string]*hcloud.Server{}
	for _, s := range servers {
		f.servers[s.Name] = s
	}
	for i, name := range []string{"node-1", "node-2"} {
		s := f.servers[name]
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: s.Name, CreationTimestamp: metav1.NewTime(now.Add(-time.Hour)),
			Annotations: map[string]string{cloudproviderapi.AnnotationAlphaProvidedIPAddr: s.PrivateNet[0].IP.String()}},
			Spec: corev1.NodeSpec{ProviderID: providerid.FromServerID(s.ID), PodCIDR: fmt.Sprintf("10.244.%d.0/24", i+1)},
			Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: s.Name},
				{Type: corev1.NodeExternalIP, Address: s.PublicNet.IPv4.IP.String()}, {Type: corev1.NodeInternalIP, Address: s.PrivateNet[0].IP.String()}}}}
		f.nodes = append(f.nodes, node)
	}
	web := lbService("web", webUID, "location", "fsn1")
	web.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "203.0.113.10"}}
	f.services = []*corev1.Service{web}
	f.deployment = &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "hcloud-cloud-controller-manager"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To(int32(2)), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			ServiceAccountName: "hcloud-cloud-controller-manager",
			Containers: []corev1.Container{{Name: "ccm", Args: []string{"--cloud-provider=hcloud", "--leader-elect=true"},
				Env: []corev1.EnvVar{{Name: "HCLOUD_TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
					LocalObjectReference: corev1.LocalObjectReference{Name: "hcloud"}, Key: "token"}}}}}}}}},
		Status: appsv1.DeploymentStatus{ReadyReplicas: 2}}
	f.objects = map[string]runtime.Object{
		"Secret": &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "hcloud"},
			Data: map[string][]byte{"token": []byte(fakecloud.DefaultToken), "network": []byte("k8s")}},
		"ServiceAccount": &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "hcloud-cloud-controller-manager"}},
		"ClusterRole":    &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "system:hcloud-cloud-controller-manager"}},
		"ClusterRoleBinding": &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "system:hcloud-cloud-controller-manager:restricted"},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "system:hcloud-cloud-controller-manager"},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "hcloud-cloud-controller-manager", Namespace: "kube-system"}}},
		"Lease": &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "cloud-controller-manager"},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("ccm-0_1234"), LeaseDurationSeconds: ptr.To(int32(15)),
				RenewTime: ptr.To(metav1.NewMicroTime(now.Add(-2 * time.Second)))}},
	}
	f.fc.ResetCounters()
	return f
}

// lbService is a LoadBalancer Service in default with port 80 and the
// annotations (short name, value, ...).
func lbService(name, uid string, annotations ...string) *corev1.Service {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID(uid), Annotations: map[string]string{}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Protocol: corev1.ProtocolTCP, Port: 80, NodePort: 30080}}}}
	for i := 0; i+1 < len(annotations); i += 2 {
		svc.Annotations["load-balancer.hetzner.cloud/"+annotations[i]] = annotations[i+1]
	}
	return svc
}

// node is the fixture's Node name.
func (f *fixture) node(name string) *corev1.Node {
	for _, n := range f.nodes {
		if n.Name == name {
			return n
		}
	}
	panic("no node " + name)
}

// run runs doctor on the fixture and checks that it counted the requests
// fakecloud answered.
func (f *fixture) run(t *testing.T) Report {
	t.Helper()
	cfg, err := ccm.LoadConfig(func(k string) string { return f.env[k] }, nil)
	if err != nil {
		t.Fatal(err)
	}
	var objs []runtime.Object
	for _, n := range f.nodes {
		objs = append(objs, n)
	}
	for _, s := range f.services {
		objs = append(objs, s)
	}
	if f.deployment != nil {
		objs = append(objs, f.deployment)
	}
	for _, o := range f.objects {
		objs = append(objs, o)
	}
	opts := f.options
	kube := fake.NewClientset(objs...)
	kube.PrependReactor("create", "subjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		review := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview).DeepCopy()
		attrs := review.Spec.ResourceAttributes
		review.Status.Allowed = review.Spec.User == "system:serviceaccount:kube-system:hcloud-cloud-controller-manager" &&
			attrs != nil && attrs.Resource == "secrets" && slices.Contains(f.secretsReadable, attrs.Namespace)
		return true, review, nil
	})
	opts.Config, opts.Kube, opts.Now = cfg, kube, func() time.Time { return now }
	r := Run(t.Context(), opts)
	if got := f.fc.Requests("", ""); uint64(r.Requests) != got {
		t.Errorf("doctor counted %d requests, fakecloud answered %d", r.Requests, got)
	}
	return r
}

// has reports whether r has a finding of check and status whose subject
// is subject and whose message contains msg.
func has(r Report, check string, status Status, subject, msg string) bool {
	for _, f := range r.Findings {
		if f.Check == check && f.Status == status && f.Subject == subject && strings.Contains(f.Message, msg) {
			return true
		}
	}
	return false
}

// dump is the report as text, for failure messages.
func dump(r Report) string {
	var b strings.Builder
	_ = WriteText(&b, r)
	return b.String()
}
