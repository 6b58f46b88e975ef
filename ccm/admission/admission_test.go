package admission

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/cloudtest"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// world is a Manager on fakecloud that has synced one Service, so the
// load balancer types are known, as in a running CCM.
type world struct {
	*cloudtest.Cloud
	lbs *loadbalancer.Manager
}

func newWorld(t *testing.T) *world {
	t.Helper()
	cloud := cloudtest.Start(t, 1, fakecloud.Options{}, hcloud.WithHTTPClient(&http.Client{Timeout: time.Second}))
	lbs := loadbalancer.New(cloud.Client, loadbalancer.Options{Defaults: annotation.Defaults{Enabled: true, Type: "lb11", Location: "fsn1"},
		MaxAge: 5 * time.Minute})
	if _, err := lbs.EnsureLoadBalancer(t.Context(), "", cloudtest.LBService("first", []int32{80}), cloud.Nodes(t)); err != nil {
		t.Fatal(err)
	}
	cloud.FC.ResetCounters()
	return &world{Cloud: cloud, lbs: lbs}
}

// svc is a LoadBalancer Service web with the annotations (short names).
func svc(annotations ...string) *corev1.Service {
	return cloudtest.LBService("web", []int32{80}, annotations...)
}

func raw(t *testing.T, s *corev1.Service) runtime.RawExtension {
	t.Helper()
	if s == nil {
		return runtime.RawExtension{}
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return runtime.RawExtension{Raw: b}
}

func request(t *testing.T, op admissionv1.Operation, obj, old *corev1.Service) *admissionv1.AdmissionRequest {
	t.Helper()
	return &admissionv1.AdmissionRequest{UID: "req-1", Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Service"},
		Resource: metav1.GroupVersionResource{Version: "v1", Resource: "services"}, Namespace: "default", Name: "web",
		Operation: op, Object: raw(t, obj), OldObject: raw(t, old)}
}

const badInterval = `annotation load-balancer.hetzner.cloud/health-check-interval="1m30x" is not valid: want `

func TestAdmit(t *testing.T) {
	w := newWorld(t)
	clusterIP := func(s *corev1.Service) *corev1.Service { s.Spec.Type = corev1.ServiceTypeClusterIP; return s }
	classed := func(s *corev1.Service) *corev1.Service {
		s.Spec.LoadBalancerClass = ptr.To("example.com/other")
		return s
	}
	ours := func(s *corev1.Service) *corev1.Service {
		s.Spec.LoadBalancerClass = ptr.To(loadbalancer.DefaultClass)
		return s
	}
	served := func(s *corev1.Service) *corev1.Service {
		s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "203.0.113.7"}}
		return s
	}
	deleting := func(s *corev1.Service) *corev1.Service {
		s.DeletionTimestamp = &metav1.Time{Time: time.Now()}
		return s
	}
	for _, tc := range []struct {
		name     string
		op       admissionv1.Operation
		obj, old *corev1.Service
		refused  []string // parts of the refusal; none: allowed
		warnings int
	}{
		{name: "good", op: admissionv1.Create, obj: svc("location", "nbg1", "health-check-interval", "15s")},
		{name: "no annotations", op: admissionv1.Create, obj: svc()},
		{name: "bad duration", op: admissionv1.Create, obj: svc("health-check-interval", "1m30x"), refused: []string{badInterval}},
		{name: "bad bool and algorithm", op: admissionv1.Create, obj: svc("disable-public-network", "ja", "algorithm-type", "random"),
			refused: []string{"load-balancer.hetzner.cloud/disable-public-network=\"ja\"", "load-balancer.hetzner.cloud/algorithm-type=\"random\"", "round_robin"}},
		{name: "https without certificates", op: admissionv1.Create, obj: svc("protocol", "https"), refused: []string{"http-certificates"}},
		{name: "per-port options", op: admissionv1.Create, obj: svc("port-80.protocol", "http", "port-80.http-sticky-sessions", "true")},
		{name: "per-port option on no port", op: admissionv1.Create, obj: svc("port-8443.protocol", "https"),
			refused: []string{`port-8443.protocol="https"`, "a TCP port of the Service by number or name: 80"}},
		{name: "manage-targets without externally-managed", op: admissionv1.Create, obj: svc("manage-targets", "true"),
			refused: []string{`manage-targets="true"`, "false unless externally-managed is true"}},
		{name: "a certificate Secret's name that cannot be one", op: admissionv1.Create, obj: svc("protocol", "https", "http-certificate-secrets", "Not_A_Name"),
			refused: []string{`http-certificate-secrets="Not_A_Name"`}},
		{name: "per-port http option on a tcp port", op: admissionv1.Create, obj: svc("port-80.http-sticky-sessions", "true"),
			refused: []string{"port-80.http-sticky-sessions", "applies to http or https ports only"}},
		{name: "unknown type (cloud)", op: admissionv1.Create, obj: svc("type", "lb99"), refused: []string{`type="lb99"`, "one of lb11, lb21, lb31"}},
		{name: "unknown location (cloud)", op: admissionv1.Create, obj: svc("location", "mars1"), refused: []string{`location="mars1"`, "fsn1"}},
		{name: "ClusterIP skipped", op: admissionv1.Create, obj: clusterIP(svc("health-check-interval", "1m30x"))},
		{name: "other loadBalancerClass skipped", op: admissionv1.Create, obj: classed(svc("health-check-interval", "1m30x"))},
		{name: "the class served judged", op: admissionv1.Create, obj: ours(svc("health-check-interval", "1m30x")), refused: []string{badInterval}},
		{name: "delete", op: admissionv1.Delete, old: svc("health-check-interval", "1m30x")},
		{name: "update keeps a problem: warned", op: admissionv1.Update,
			obj: svc("health-check-interval", "1m30x", "location", "nbg1"), old: svc("health-check-interval", "1m30x"), warnings: 1},
		{name: "update brings a problem", op: admissionv1.Update,
			obj: svc("health-check-interval", "1m30x", "health-check-retries", "many"), old: svc("health-check-interval", "1m30x"),
			refused: []string{"health-check-retries=\"many\""}},
		{name: "update changes a bad value to another", op: admissionv1.Update,
			obj: svc("health-check-interval", "2m30x"), old: svc("health-check-interval", "1m30x"), refused: []string{`"2m30x"`}},
		{name: "update fixes it", op: admissionv1.Update, obj: svc(), old: svc("health-check-interval", "1m30x")},
		{name: "update to LoadBalancer", op: admissionv1.Update,
			obj: svc("health-check-interval", "1m30x"), old: clusterIP(svc("health-check-interval", "1m30x")), refused: []string{badInterval}},
		{name: "update of a Service being deleted", op: admissionv1.Update,
			obj: deleting(svc("health-check-interval", "2m30x")), old: svc("health-check-interval", "1m30x")},
		{name: "a target address family", op: admissionv1.Create, obj: svc("target-address-family", "dualstack")},
		{name: "a target address family it does not take", op: admissionv1.Create, obj: svc("target-address-family", "v6"),
			refused: []string{`target-address-family="v6"`, "one of ipv4, ipv6, dualstack"}},
		{name: "IPv6 targets on private IPs", op: admissionv1.Create, obj: svc("target-address-family", "ipv6", "use-private-ip", "true"),
			refused: []string{`target-address-family="ipv6"`, "private networks are IPv4-only"}},
		{name: "Primary IPs by ID", op: admissionv1.Create, obj: svc("public-net-ipv4", "4711", "public-net-ipv6", "4712")},
		{name: "a Primary IP by name", op: admissionv1.Create, obj: svc("public-net-ipv4", "my-lb-ipv4"),
			refused: []string{`public-net-ipv4="my-lb-ipv4"`, "the ID of an IPv4 Primary IP"}},
		{name: "a Primary IP of ID 0", op: admissionv1.Create, obj: svc("public-net-ipv6", "0"), refused: []string{`public-net-ipv6="0"`}},
		{name: "a Primary IP with the public interface off", op: admissionv1.Create, obj: svc("public-net-ipv4", "4711", "disable-public-network", "true"),
			refused: []string{`public-net-ipv4="4711"`, "a Primary IP is an address of the public interface"}},
		{name: "a Primary IP changed on an existing load balancer", op: admissionv1.Update,
			obj: svc("public-net-ipv4", "4712"), old: served(svc("public-net-ipv4", "4711")), warnings: 1},
		{name: "a Primary IP removed from an existing load balancer", op: admissionv1.Update,
			obj: svc(), old: served(svc("public-net-ipv6", "4712")), warnings: 1},
		{name: "a Primary IP set before the load balancer exists", op: admissionv1.Update, obj: svc("public-net-ipv4", "4711"), old: svc()},
		{name: "an existing load balancer's Primary IP kept", op: admissionv1.Update,
			obj: svc("public-net-ipv4", "4711", "location", "nbg1"), old: served(svc("public-net-ipv4", "4711"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := w.Requests()
			resp, err := New(w.lbs, true).Admit(request(t, tc.op, tc.obj, tc.old))
			if err != nil {
				t.Fatal(err)
			}
			if n := w.Requests() - before; n != 0 {
				t.Errorf("%d API requests, want none", n)
			}
			if resp.UID != "req-1" {
				t.Errorf("UID %q", resp.UID)
			}
			if len(tc.refused) == 0 {
				if !resp.Allowed {
					t.Errorf("refused: %+v", resp.Result)
				}
				if len(resp.Warnings) != tc.warnings {
					t.Errorf("warnings %q, want %d", resp.Warnings, tc.warnings)
				}
				return
			}
			if resp.Allowed || resp.Result == nil {
				t.Fatalf("allowed, want refused with %q", tc.refused)
			}
			if resp.Result.Code != http.StatusForbidden || resp.Result.Reason != metav1.StatusReasonForbidden {
				t.Errorf("code %d reason %q", resp.Result.Code, resp.Result.Reason)
			}
			for _, want := range tc.refused {
				if !strings.Contains(resp.Result.Message, want) {
					t.Errorf("message %q lacks %q", resp.Result.Message, want)
				}
			}
		})
	}
}

// TestAdmitUpdateNamesOnlyTheNewProblem: the refusal of an UPDATE lists
// what it brings, not what the Service already had.
func TestAdmitUpdateNamesOnlyTheNewProblem(t *testing.T) {
	w := newWorld(t)
	resp, err := New(w.lbs, true).Admit(request(t, admissionv1.Update,
		svc("health-check-interval", "1m30x", "algorithm-type", "random"), svc("health-check-interval", "1m30x")))
	if err != nil {
		t.Fatal(err)
	}
	want := `annotation load-balancer.hetzner.cloud/algorithm-type="random" is not valid: want one of round_robin, least_connections`
	if resp.Allowed || resp.Result.Message != want {
		t.Errorf("allowed %v, message %q, want %q", resp.Allowed, resp.Result.Message, want)
	}
}

// TestAdmitCloudChecks: the cloud checks are off on request, pass before
// the CCM knows anything, and with load balancers off nothing is judged.
func TestAdmitCloudChecks(t *testing.T) {
	w := newWorld(t)
	bad := request(t, admissionv1.Create, svc("type", "lb99"), nil)
	if resp, _ := New(w.lbs, false).Admit(bad); !resp.Allowed {
		t.Errorf("without cloud checks: refused %q", resp.Result.Message)
	}
	cold := loadbalancer.New(w.Client, loadbalancer.Options{Defaults: annotation.Defaults{Enabled: true, Type: "lb11"}, MaxAge: time.Minute})
	if resp, _ := New(cold, true).Admit(bad); !resp.Allowed {
		t.Errorf("before the first sync: refused %q", resp.Result.Message)
	}
	if resp, _ := New(nil, true).Admit(request(t, admissionv1.Create, svc("health-check-interval", "1m30x"), nil)); !resp.Allowed {
		t.Errorf("load balancers off: refused %q", resp.Result.Message)
	}
	if n := w.Requests(); n != 0 {
		t.Errorf("%d API requests, want none", n)
	}
}

// TestAdmitGarbage: an object that is no Service is an error (the webhook
// answers 500, and the API server's failurePolicy Ignore lets it pass).
func TestAdmitGarbage(t *testing.T) {
	req := request(t, admissionv1.Create, nil, nil)
	req.Object.Raw = []byte(`{"spec": 7}`)
	if _, err := New(newWorld(t).lbs, true).Admit(req); err == nil {
		t.Error("no error")
	}
}

// TestAdmitWarnsOfAMissingCertificate: a certificate a sync found missing
// is a warning, not a refusal: it may have been uploaded since.
func TestAdmitWarnsOfAMissingCertificate(t *testing.T) {
	w := newWorld(t)
	tls := cloudtest.LBService("tls", []int32{443}, "protocol", "https", "http-certificates", "shop")
	if _, err := w.lbs.EnsureLoadBalancer(t.Context(), "", tls, w.Nodes(t)); err == nil {
		t.Fatal("a sync with a missing certificate succeeded")
	}
	resp, err := New(w.lbs, true).Admit(request(t, admissionv1.Create, svc("protocol", "https", "http-certificates", "shop"), nil))
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Allowed || len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], `no certificate "shop"`) {
		t.Errorf("allowed %v, warnings %q; want allowed with the certificate named", resp.Allowed, resp.Warnings)
	}
}

// TestAdmitWarnsOfSourceRanges: source ranges are a warning, not a
// refusal: no Hetzner load balancer enforces them.
func TestAdmitWarnsOfSourceRanges(t *testing.T) {
	w := newWorld(t)
	s := svc()
	s.Spec.LoadBalancerSourceRanges = []string{"10.0.0.0/8", "192.0.2.0/24"}
	resp, err := New(w.lbs, false).Admit(request(t, admissionv1.Create, s, nil))
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Allowed || len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], "spec.loadBalancerSourceRanges (10.0.0.0/8, 192.0.2.0/24) is not enforced") {
		t.Errorf("allowed %v, warnings %q; want allowed with the ranges named as not enforced", resp.Allowed, resp.Warnings)
	}
	s = svc()
	s.Annotations["service.beta.kubernetes.io/load-balancer-source-ranges"] = "198.51.100.0/24"
	if resp, _ := New(w.lbs, false).Admit(request(t, admissionv1.Create, s, nil)); len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], "198.51.100.0/24") {
		t.Errorf("the annotation form: warnings %q", resp.Warnings)
	}
}

// TestAdmitWarnsOfAPrimaryIPChange: a change to public-net-ipv4 of a
// Service whose load balancer exists is allowed with a warning that names
// the change and says the addresses stay.
func TestAdmitWarnsOfAPrimaryIPChange(t *testing.T) {
	w := newWorld(t)
	old := svc("public-net-ipv4", "4711")
	old.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "203.0.113.7"}}
	resp, err := New(w.lbs, false).Admit(request(t, admissionv1.Update, svc("public-net-ipv4", "4712"), old))
	if err != nil {
		t.Fatal(err)
	}
	want := `load-balancer.hetzner.cloud/public-net-ipv4 ("4711" to "4712")`
	if !resp.Allowed || len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], want) || !strings.Contains(resp.Warnings[0], "keeps its addresses") {
		t.Errorf("allowed %v, warnings %q; want allowed with a warning naming %s", resp.Allowed, resp.Warnings, want)
	}
}
