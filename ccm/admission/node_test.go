package admission

import (
	"encoding/json"
	"net/netip"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cloudproviderapi "k8s.io/cloud-provider/api"

	"github.com/hcloudlab/hcloud-ccm/ccm"
)

func nodeReview(t *testing.T, op admissionv1.Operation, oldIP, newIP string) *admissionv1.AdmissionRequest {
	t.Helper()
	raw := func(ip string) []byte {
		n := &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: metav1.ObjectMeta{Name: "worker-1"}}
		if ip != "" {
			n.Annotations = map[string]string{cloudproviderapi.AnnotationAlphaProvidedIPAddr: ip}
		}
		b, err := json.Marshal(n)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	req := &admissionv1.AdmissionRequest{UID: "r", Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Node"}, Name: "worker-1", Operation: op}
	req.Object.Raw = raw(newIP)
	if op == admissionv1.Update {
		req.OldObject.Raw = raw(oldIP)
	}
	return req
}

// TestNodeWebhookExplainsTheNodeIP: the Node webhook allows every Node
// and says what the CCM makes of a new or changed --node-ip.
func TestNodeWebhookExplainsTheNodeIP(t *testing.T) {
	cfg := ccm.Config{InternalIPCIDRs: []netip.Prefix{netip.MustParsePrefix("100.64.0.0/10")}}
	h := NewNode(func(old, cur *corev1.Node) []string { return ccm.NodeWarnings(cfg, old, cur) })
	for _, tc := range []struct {
		name string
		req  *admissionv1.AdmissionRequest
		want string // a part of the one warning; "" for none
	}{
		{"an overlay address", nodeReview(t, admissionv1.Create, "", "100.64.0.5"),
			"--node-ip 100.64.0.5 lies in HCLOUD_INSTANCES_INTERNAL_IP_CIDRS (100.64.0.0/10): the CCM keeps it as the Node's InternalIP"},
		{"outside the ranges", nodeReview(t, admissionv1.Create, "", "192.168.1.5"),
			"--node-ip 192.168.1.5 is in none of HCLOUD_INSTANCES_INTERNAL_IP_CIDRS (100.64.0.0/10): unless it is an address of the Node's server, the Node is not initialised"},
		{"changed", nodeReview(t, admissionv1.Update, "192.168.1.5", "100.64.0.5"), "lies in"},
		{"unchanged: the kubelet's updates stay quiet", nodeReview(t, admissionv1.Update, "100.64.0.5", "100.64.0.5"), ""},
		{"no --node-ip", nodeReview(t, admissionv1.Create, "", ""), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := h.Admit(tc.req)
			if err != nil || !resp.Allowed {
				t.Fatalf("%+v %v: want allowed", resp, err)
			}
			switch {
			case tc.want == "" && len(resp.Warnings) > 0:
				t.Errorf("warnings %q, want none", resp.Warnings)
			case tc.want != "" && (len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], tc.want)):
				t.Errorf("warnings %q, want one with %q", resp.Warnings, tc.want)
			}
		})
	}
	// Without ranges, nothing to explain.
	quiet := NewNode(func(old, cur *corev1.Node) []string { return ccm.NodeWarnings(ccm.Config{}, old, cur) })
	if resp, _ := quiet.Admit(nodeReview(t, admissionv1.Create, "", "100.64.0.5")); len(resp.Warnings) > 0 {
		t.Errorf("warnings %q without HCLOUD_INSTANCES_INTERNAL_IP_CIDRS", resp.Warnings)
	}
}
