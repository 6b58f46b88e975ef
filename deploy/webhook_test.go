package deploy

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestWebhookOff: by default nothing of the webhook renders, and its port
// stays unbound.
func TestWebhookOff(t *testing.T) {
	objs := webhookOnly(mustRender(t))
	if n := len(all[*admissionregistrationv1.ValidatingWebhookConfiguration](objs)) + len(all[*corev1.Service](objs)) +
		len(all[*corev1.Secret](objs)) + len(all[*rbacv1.Role](objs)) + len(all[*unstructured.Unstructured](objs)); n != 0 {
		t.Errorf("%d webhook objects with webhook.enabled=false", n)
	}
	if args := container(t, objs).Args; !slices.Contains(args, "--webhook-secure-port=0") ||
		slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--webhooks") }) {
		t.Errorf("args %q", args)
	}
}

// TestWebhookSelfSigned: the configuration fails open and calls the
// webhook Service, which selects the pods' webhook port; the CCM gets the
// flags of its self-signed certificate and exactly the rights they need.
func TestWebhookSelfSigned(t *testing.T) {
	objs := webhookOnly(mustRender(t, "--set", "webhook.enabled=true"))
	vwc := one[*admissionregistrationv1.ValidatingWebhookConfiguration](t, objs)
	wh := webhookOf(t, vwc)
	svc := one[*corev1.Service](t, objs)
	if vwc.Name != officialName || len(vwc.Annotations) != 0 {
		t.Errorf("configuration %s annotations %v", vwc.Name, vwc.Annotations)
	}
	if ref := wh.ClientConfig.Service; ref == nil || ref.Name != svc.Name || ref.Namespace != "kube-system" ||
		ref.Path == nil || *ref.Path != "/validate-service" || ref.Port == nil || *ref.Port != 443 {
		t.Errorf("clientConfig %+v, Service %s", wh.ClientConfig, svc.Name)
	}
	d := container(t, objs)
	if svc.Spec.Ports[0].Port != 443 || svc.Spec.Ports[0].TargetPort.String() != "webhook" ||
		!slices.Contains(d.Ports, corev1.ContainerPort{Name: "webhook", ContainerPort: 10260}) {
		t.Errorf("Service ports %+v, container ports %+v", svc.Spec.Ports, d.Ports)
	}
	if diff := cmp.Diff(one[*appsv1.Deployment](t, objs).Spec.Selector.MatchLabels, svc.Spec.Selector); diff != "" {
		t.Errorf("Service selector (-pods +Service):\n%s", diff)
	}
	for _, want := range []string{"--webhooks=service", "--webhook-secure-port=10260", "--webhook-cert-secret=kube-system/" + officialName + "-webhook-tls",
		"--webhook-service=kube-system/" + officialName + "-webhook", "--webhook-configuration=" + officialName} {
		if !slices.Contains(d.Args, want) {
			t.Errorf("no %s in %q", want, d.Args)
		}
	}
	if slices.Contains(d.Args, "--webhook-secure-port=0") {
		t.Errorf("args %q keep the port off", d.Args)
	}
	secret := one[*corev1.Secret](t, objs)
	role := one[*rbacv1.Role](t, objs)
	if diff := cmp.Diff([]rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{secret.Name},
		Verbs: []string{"get", "update"}}}, role.Rules); diff != "" {
		t.Errorf("Role rules (-want +got):\n%s", diff)
	}
	rb := one[*rbacv1.RoleBinding](t, objs)
	if rb.RoleRef.Name != role.Name || rb.Subjects[0].Name != officialName || rb.Namespace != "kube-system" || role.Namespace != "kube-system" {
		t.Errorf("RoleBinding %+v", rb)
	}
	cr := one[*rbacv1.ClusterRole](t, objs)
	want := rbacv1.PolicyRule{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"validatingwebhookconfigurations"},
		ResourceNames: []string{vwc.Name}, Verbs: []string{"get", "update"}}
	if diff := cmp.Diff(want, cr.Rules[len(cr.Rules)-1]); diff != "" {
		t.Errorf("ClusterRole's last rule (-want +got):\n%s", diff)
	}
	if n := len(all[*rbacv1.Role](webhookOnly(mustRender(t, "--set", "webhook.enabled=true", "--set", "rbac.create=false")))); n != 0 {
		t.Errorf("%d Roles with rbac.create=false", n)
	}
}

// TestWebhookFailsOpen: what keeps a CCM outage from blocking deployments.
func TestWebhookFailsOpen(t *testing.T) {
	wh := webhookOf(t, one[*admissionregistrationv1.ValidatingWebhookConfiguration](t, mustRender(t, "--set", "webhook.enabled=true")))
	if wh.FailurePolicy == nil || *wh.FailurePolicy != admissionregistrationv1.Ignore {
		t.Errorf("failurePolicy %v, want Ignore", wh.FailurePolicy)
	}
	if wh.TimeoutSeconds == nil || *wh.TimeoutSeconds > 5 {
		t.Errorf("timeoutSeconds %v, want at most 5", wh.TimeoutSeconds)
	}
	if wh.SideEffects == nil || *wh.SideEffects != admissionregistrationv1.SideEffectClassNone || !slices.Equal(wh.AdmissionReviewVersions, []string{"v1"}) {
		t.Errorf("sideEffects %v, admissionReviewVersions %v", wh.SideEffects, wh.AdmissionReviewVersions)
	}
	rule := admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{"CREATE", "UPDATE"},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"services"}, Scope: ptrTo(admissionregistrationv1.NamespacedScope)}}
	if diff := cmp.Diff([]admissionregistrationv1.RuleWithOperations{rule}, wh.Rules); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	sel := wh.NamespaceSelector
	if sel == nil || len(sel.MatchExpressions) != 1 || sel.MatchExpressions[0].Key != "kubernetes.io/metadata.name" ||
		sel.MatchExpressions[0].Operator != "NotIn" || !slices.Equal(sel.MatchExpressions[0].Values, []string{"kube-system"}) {
		t.Errorf("namespaceSelector %+v, want every namespace but kube-system", sel)
	}
}

// TestWebhookCertManager: a Certificate for the Service's names in the
// Secret the pods mount, the caBundle injected from it; no Secret, Role
// or configuration rights for the CCM.
func TestWebhookCertManager(t *testing.T) {
	objs := webhookOnly(mustRender(t, "--set", "webhook.enabled=true", "--set", "webhook.certificates=cert-manager"))
	vwc := one[*admissionregistrationv1.ValidatingWebhookConfiguration](t, objs)
	if got := vwc.Annotations["cert-manager.io/inject-ca-from"]; got != "kube-system/"+officialName+"-webhook" {
		t.Errorf("inject-ca-from %q", got)
	}
	byKind := map[string]*unstructured.Unstructured{}
	for _, u := range all[*unstructured.Unstructured](objs) {
		byKind[u.GetKind()] = u
	}
	cert, issuer := byKind["Certificate"], byKind["Issuer"]
	if cert == nil || issuer == nil || cert.GetName() != officialName+"-webhook" {
		t.Fatalf("cert-manager objects %v", byKind)
	}
	dns, _, _ := unstructured.NestedStringSlice(cert.Object, "spec", "dnsNames")
	svc := one[*corev1.Service](t, objs)
	if !slices.Contains(dns, svc.Name+".kube-system.svc") {
		t.Errorf("dnsNames %v lack the Service's", dns)
	}
	if ref, _, _ := unstructured.NestedString(cert.Object, "spec", "issuerRef", "name"); ref != issuer.GetName() {
		t.Errorf("issuerRef %s, Issuer %s", ref, issuer.GetName())
	}
	secretName, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName")
	pod := one[*appsv1.Deployment](t, objs).Spec.Template.Spec
	c := pod.Containers[0]
	if len(pod.Volumes) != 1 || pod.Volumes[0].Secret == nil || pod.Volumes[0].Secret.SecretName != secretName ||
		len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/etc/hcloud-ccm/webhook" {
		t.Errorf("volumes %+v mounts %+v", pod.Volumes, c.VolumeMounts)
	}
	for _, want := range []string{"--webhook-tls-cert-file=/etc/hcloud-ccm/webhook/tls.crt", "--webhook-tls-private-key-file=/etc/hcloud-ccm/webhook/tls.key"} {
		if !slices.Contains(c.Args, want) {
			t.Errorf("no %s in %q", want, c.Args)
		}
	}
	if slices.ContainsFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, "--webhook-cert-secret") }) {
		t.Errorf("args %q keep the self-signed certificate", c.Args)
	}
	if n := len(all[*corev1.Secret](objs)) + len(all[*rbacv1.Role](objs)); n != 0 {
		t.Errorf("%d Secrets and Roles with cert-manager", n)
	}
	if rules := one[*rbacv1.ClusterRole](t, objs).Rules; slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool {
		return slices.Contains(r.Resources, "validatingwebhookconfigurations")
	}) {
		t.Error("the CCM may update the configuration that cert-manager keeps")
	}

	objs = mustRender(t, "--set", "webhook.enabled=true", "--set", "webhook.certificates=cert-manager",
		"--set", "webhook.certManager.issuerRef.kind=ClusterIssuer", "--set", "webhook.certManager.issuerRef.name=internal-ca")
	for _, u := range all[*unstructured.Unstructured](objs) {
		if u.GetKind() == "Issuer" {
			t.Error("an Issuer besides webhook.certManager.issuerRef")
		}
		if ref, _, _ := unstructured.NestedString(u.Object, "spec", "issuerRef", "name"); u.GetKind() == "Certificate" && ref != "internal-ca" {
			t.Errorf("issuerRef %s", ref)
		}
	}
}

// TestWebhookRefused: an unknown certificates mode fails the render (the
// schema says so first; the template too, for helm without the schema).
func TestWebhookRefused(t *testing.T) {
	_, err := render(t, "--set", "webhook.enabled=true", "--set", "webhook.certificates=vault")
	if err == nil || !strings.Contains(err.Error(), "certificates") || !strings.Contains(err.Error(), "cert-manager") {
		t.Errorf("render error %v", err)
	}
}

func webhookOf(t *testing.T, vwc *admissionregistrationv1.ValidatingWebhookConfiguration) admissionregistrationv1.ValidatingWebhook {
	t.Helper()
	if len(vwc.Webhooks) != 1 {
		t.Fatalf("%d webhooks", len(vwc.Webhooks))
	}
	return vwc.Webhooks[0]
}

func ptrTo[T any](v T) *T { return &v }

// webhookOnly drops the rollout guard's Role and RoleBinding, which every
// Deployment has (TestRolloutGuard).
func webhookOnly(objs []runtime.Object) []runtime.Object {
	return slices.DeleteFunc(slices.Clone(objs), func(o runtime.Object) bool {
		m, err := meta.Accessor(o)
		return err == nil && strings.HasSuffix(m.GetName(), "-rollout")
	})
}
