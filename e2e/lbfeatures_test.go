//go:build e2e

package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
	"github.com/hcloudlab/hcloud-ccm/internal/testcert"
)

// clusterWith is cluster with the CCM's environment extended by env.
func clusterWith(t *testing.T, env []string, nodes ...string) (*harness.Env, context.Context) {
	t.Helper()
	e := setup(t, func(o *harness.Options) { o.CCMEnv = append(o.CCMEnv, env...) })
	ctx := context.Background()
	if _, err := e.StartCCM(ctx); err != nil {
		t.Fatal(err)
	}
	for i, n := range nodes {
		if err := e.RegisterNode(ctx, n, cidr(i)); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range nodes {
		fakecloudtest.Eventually(t, time.Minute, n+" initialised", func() bool { return node(t, e, n).Spec.ProviderID != "" })
	}
	return e, ctx
}

// classService is a LoadBalancer Service on port 80 of class ("" for none).
func classService(name, class string) *corev1.Service {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": name},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
	if class != "" {
		svc.Spec.LoadBalancerClass = &class
	}
	return svc
}

// TestLoadBalancerClass: a CCM told to serve only its class
// (HCLOUD_LOAD_BALANCERS_CLASS, HCLOUD_LOAD_BALANCERS_SERVE_WITHOUT_CLASS=false)
// makes a load balancer for a Service of that class, and leaves one
// without a class and one of MetalLB's alone: no load balancer, no
// finalizer, no address.
func TestLoadBalancerClass(t *testing.T) {
	env, ctx := clusterWith(t, []string{"HCLOUD_LOAD_BALANCERS_CLASS=example.com/hcloud", "HCLOUD_LOAD_BALANCERS_SERVE_WITHOUT_CLASS=false"},
		"control-plane-1", "worker-1")
	svcs := env.Kube.CoreV1().Services("default")
	done := timed(t, "a class served, two left alone")
	for _, svc := range []*corev1.Service{classService("plain", ""), classService("metallb", "metallb.io/metallb"), classService("ours", "example.com/hcloud")} {
		if _, err := svcs.Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	fakecloudtest.Eventually(t, time.Minute, "the Service of the class served gets its address", func() bool {
		return len(get(t, env, "ours").Status.LoadBalancer.Ingress) > 0
	})
	done()
	lbs, err := env.Cloud().Client.LoadBalancer.All(ctx)
	if err != nil || len(lbs) != 1 {
		t.Fatalf("%d load balancers (%v), want the one of ours", len(lbs), err)
	}
	if ours := get(t, env, "ours"); ours.Spec.LoadBalancerClass == nil || *ours.Spec.LoadBalancerClass != "example.com/hcloud" ||
		!slices.Contains(ours.Finalizers, lbFinalizer) {
		t.Errorf("ours: class %v, finalizers %v", ours.Spec.LoadBalancerClass, ours.Finalizers)
	}
	for _, name := range []string{"plain", "metallb"} {
		if s := get(t, env, name); len(s.Finalizers) != 0 || len(s.Status.LoadBalancer.Ingress) != 0 {
			t.Errorf("%s was served: finalizers %v, status %v", name, s.Finalizers, s.Status.LoadBalancer.Ingress)
		}
	}
}

// TestLoadBalancerBesideTerraform: load balancers Terraform made and the
// CCM shares. A Service adopting one with keep-other-services leaves
// Terraform's service; a Service with retain-on-delete leaves its load
// balancer behind, which the next Service naming it adopts with the same
// address; an externally managed Service only reports the address.
func TestLoadBalancerBesideTerraform(t *testing.T) {
	env, ctx := cluster(t, "control-plane-1", "worker-1")
	api := env.Cloud().Client
	svcs := env.Kube.CoreV1().Services("default")
	terraform := func(name string, port int) *hcloud.LoadBalancer {
		res, _, err := api.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{Name: name, LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"},
			Location: &hcloud.Location{Name: "fsn1"}, Labels: map[string]string{"managed-by": "terraform"},
			Services: []hcloud.LoadBalancerCreateOptsService{{Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: hcloud.Ptr(port), DestinationPort: hcloud.Ptr(port)}}})
		if err != nil {
			t.Fatal(err)
		}
		return res.LoadBalancer
	}
	named := func(name string) *hcloud.LoadBalancer {
		lb, _, err := api.LoadBalancer.GetByName(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return lb
	}
	create := func(svc *corev1.Service) {
		if _, err := svcs.Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	address := func(name string) string {
		if in := get(t, env, name).Status.LoadBalancer.Ingress; len(in) > 0 {
			return in[0].IP
		}
		return ""
	}

	done := timed(t, "adopted, Terraform's service kept")
	terraform("shop", 5432)
	shop := classService("shop", "")
	shop.Annotations = map[string]string{"load-balancer.hetzner.cloud/name": "shop", "load-balancer.hetzner.cloud/keep-other-services": "true",
		"load-balancer.hetzner.cloud/retain-on-delete": "true"}
	create(shop)
	fakecloudtest.Eventually(t, time.Minute, "shop's address", func() bool { return address("shop") != "" })
	fakecloudtest.Eventually(t, 30*time.Second, "ports 80 and 5432", func() bool {
		lb := named("shop")
		return len(lb.Services) == 2 && lb.Labels["managed-by"] == "terraform" && lb.Labels["hcloud-ccm/ports"] == "80"
	})
	done()

	done = timed(t, "retained, adopted again with the same address")
	ip := address("shop")
	if err := svcs.Delete(ctx, "shop", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, time.Minute, "shop deleted", func() bool {
		_, err := svcs.Get(ctx, "shop", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	if lb := named("shop"); lb == nil || lb.Labels["hcloud-ccm/service-uid"] != "" || lb.PublicNet.IPv4.IP.String() != ip {
		t.Fatalf("retained load balancer %+v, want it unowned at %s", lb, ip)
	}
	again := classService("shop-v2", "")
	again.Annotations = map[string]string{"load-balancer.hetzner.cloud/name": "shop"}
	create(again)
	fakecloudtest.Eventually(t, time.Minute, "the new Service's address", func() bool { return address("shop-v2") != "" })
	if got := address("shop-v2"); got != ip {
		t.Errorf("the new Service got %s, want the retained %s", got, ip)
	}
	done()

	done = timed(t, "externally managed: the address only")
	edge := terraform("edge", 443)
	ext := classService("edge", "")
	ext.Annotations = map[string]string{"load-balancer.hetzner.cloud/name": "edge", "load-balancer.hetzner.cloud/externally-managed": "true"}
	create(ext)
	fakecloudtest.Eventually(t, time.Minute, "edge's address", func() bool { return address("edge") == edge.PublicNet.IPv4.IP.String() })
	if lb := named("edge"); len(lb.Services) != 1 || lb.Services[0].ListenPort != 443 || len(lb.Targets) != 0 || lb.Labels["hcloud-ccm/service-uid"] != "" {
		t.Errorf("the externally managed load balancer changed: %d services, %d targets, labels %v", len(lb.Services), len(lb.Targets), lb.Labels)
	}
	if err := svcs.Delete(ctx, "edge", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, time.Minute, "edge deleted", func() bool {
		_, err := svcs.Get(ctx, "edge", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	if named("edge") == nil {
		t.Error("deleting the externally managed Service deleted Terraform's load balancer")
	}
	done()
}

// TestCertificateFromSecret: a Service names a kubernetes.io/tls Secret
// (as cert-manager writes it); the CCM, allowed to read Secrets in that
// namespace only (the Role and RoleBinding the chart's
// rbac.certificateSecretNamespaces makes), uploads it and serves it; the
// Secret renewed, the new certificate replaces the old, which is deleted.
func TestCertificateFromSecret(t *testing.T) {
	env, ctx := cluster(t, "control-plane-1", "worker-1")
	kube, api := env.Kube, env.Cloud().Client
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "system:hcloud-cloud-controller-manager:certificate-secrets", Namespace: "default"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list", "watch"}}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name, Namespace: "default"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "hcloud-cloud-controller-manager", Namespace: "kube-system"}}}
	if _, err := kube.RbacV1().Roles("default").Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kube.RbacV1().RoleBindings("default").Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pair := testcert.New(t, "shop.example.com")
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "shop-tls"}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{corev1.TLSCertKey: []byte(pair.CertPEM), corev1.TLSPrivateKeyKey: []byte(pair.KeyPEM)}}
	if _, err := kube.CoreV1().Secrets("default").Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	served := func() (int64, int) {
		lbs, err := api.LoadBalancer.All(ctx)
		certs, err2 := api.Certificate.All(ctx)
		if err != nil || err2 != nil || len(lbs) != 1 || len(lbs[0].Services) != 1 || len(lbs[0].Services[0].HTTP.Certificates) != 1 {
			return 0, len(certs)
		}
		return lbs[0].Services[0].HTTP.Certificates[0].ID, len(certs)
	}

	done := timed(t, "the Secret's certificate uploaded and served")
	svc := classService("shop", "")
	svc.Spec.Ports[0].Port = 443
	svc.Annotations = map[string]string{"load-balancer.hetzner.cloud/protocol": "https", "load-balancer.hetzner.cloud/http-certificate-secrets": "shop-tls"}
	if _, err := kube.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var first int64
	fakecloudtest.Eventually(t, time.Minute, "port 443 serves the uploaded certificate", func() bool { first, _ = served(); return first != 0 })
	done()

	done = timed(t, "the renewed Secret replaces the certificate, the old one deleted")
	pair = testcert.New(t, "shop.example.com")
	secret.Data = map[string][]byte{corev1.TLSCertKey: []byte(pair.CertPEM), corev1.TLSPrivateKeyKey: []byte(pair.KeyPEM)}
	if _, err := kube.CoreV1().Secrets("default").Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, time.Minute, "a new certificate served, the old one gone", func() bool {
		id, n := served()
		return id != 0 && id != first && n == 1
	})
	done()
	events, err := kube.CoreV1().Events("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events.Items {
		if strings.Contains(e.Message, "PRIVATE KEY") || strings.Contains(e.Message, pair.KeyPEM[40:80]) {
			t.Errorf("event %s shows the private key", e.Reason)
		}
	}
}
