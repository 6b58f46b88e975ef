package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/cloud-provider/options"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
	"github.com/hcloudlab/hcloud-ccm/ccm/webhookcert"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

const webhookHost = "hccm-webhook.kube-system.svc"

// TestWebhookServedOverTLS: the command's flags and wiring serve the
// service webhook over TLS with the self-signed certificate that the
// caBundle trusts, refuse a bad Service over that connection, and serve a
// renewed certificate without a restart.
func TestWebhookServedOverTLS(t *testing.T) {
	fc := fakecloud.New(fakecloud.Options{RateLimit: -1})
	lbs := loadbalancer.New(fakecloudtest.Client(fakecloudtest.Serve(t, fc), fakecloud.DefaultToken),
		loadbalancer.Options{Defaults: annotation.Defaults{Enabled: true, Type: "lb11", Location: "fsn1"}, MaxAge: time.Minute})
	kube := fake.NewClientset(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "hccm-webhook-tls"}},
		&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "hccm"},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "services.hcloud-ccm.hetzner.cloud"}}})

	port := freePort(t)
	opts := ccmOptions(t)
	hooks := &webhookFlags{lbs: func() *loadbalancer.Manager { return lbs }}
	cmd := newCommand(t.Context(), opts, nil, hooks)
	if err := cmd.Flags().Parse([]string{"--kubeconfig=" + kubeconfig(t), "--secure-port=0", "--webhooks=service",
		"--webhook-bind-address=127.0.0.1", "--webhook-secure-port=" + strconv.Itoa(port),
		"--webhook-cert-secret=kube-system/hccm-webhook-tls", "--webhook-service=kube-system/hccm-webhook", "--webhook-configuration=hccm"}); err != nil {
		t.Fatal(err)
	}
	completed, err := completeConfig(opts, hooks)
	if err != nil {
		t.Fatal(err)
	}
	webhooks, err := hooks.handlers(t.Context(), completed, kube, nil)
	if err != nil || len(webhooks) != 1 {
		t.Fatalf("%d webhooks, %v", len(webhooks), err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	if err := serveWebhooks(completed, webhooks, stop); err != nil {
		t.Fatal(err)
	}

	addr := "127.0.0.1:" + strconv.Itoa(port)
	var served []byte
	waitFor(t, "the caBundle trusts the served certificate", func() bool {
		served = servedCert(t, addr, caBundle(t, kube))
		return served != nil
	})
	// Every replica lists the types once at start, leader or not, so that
	// the cloud checks work before any sync; admissions then cost nothing.
	waitFor(t, "the load balancer types listed", func() bool { return fc.Requests("GET", "/load_balancer_types") == 1 })
	fc.ResetCounters()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool(caBundle(t, kube)), ServerName: webhookHost}}}
	t.Cleanup(client.CloseIdleConnections)

	bad := review(t, map[string]string{"load-balancer.hetzner.cloud/health-check-interval": "1m30x"})
	resp := post(t, client, addr, bad)
	if resp.Allowed || resp.Result == nil ||
		!strings.Contains(resp.Result.Message, `annotation load-balancer.hetzner.cloud/health-check-interval="1m30x" is not valid: want`) {
		t.Errorf("bad Service: %+v", resp)
	}
	if resp.UID != "req-7" {
		t.Errorf("response UID %q", resp.UID)
	}
	if resp := post(t, client, addr, review(t, nil)); !resp.Allowed {
		t.Errorf("good Service refused: %+v", resp.Result)
	}
	if resp := post(t, client, addr, review(t, map[string]string{"load-balancer.hetzner.cloud/type": "lb99"})); resp.Allowed ||
		!strings.Contains(resp.Result.Message, "lb11") {
		t.Errorf("unknown type before any sync: %+v", resp.Result)
	}
	if n := fc.Requests("", ""); n != 0 {
		t.Errorf("%d requests to the cloud, want none", n)
	}

	// A renewal (here: the Secret emptied) is served on the next connection.
	if _, err := kube.CoreV1().Secrets("kube-system").Update(t.Context(),
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "hccm-webhook-tls"}}, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := hooks.rotator.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	renewed := secretData(t, kube)[webhookcert.KeyCert]
	waitFor(t, "the renewed certificate is served", func() bool {
		got := servedCert(t, addr, caBundle(t, kube))
		return got != nil && bytes.Equal(got, firstPEM(t, renewed))
	})
}

// TestWebhookFlags: --webhooks=* leaves the off-by-default webhook off;
// the self-signed certificate needs its Service and excludes files.
func TestWebhookFlags(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		hooks   int
		wantErr string
	}{
		{"off by default", nil, 0, ""},
		{"star", []string{"--webhooks=*"}, 0, ""},
		{"on", []string{"--webhooks=service"}, 1, ""},
		{"node", []string{"--webhooks=node"}, 1, ""},
		{"both", []string{"--webhooks=service,node"}, 2, ""},
		{"unknown", []string{"--webhooks=pods"}, 0, `"pods" is not in the list of known webhooks`},
		{"no service", []string{"--webhooks=service", "--webhook-cert-secret=kube-system/tls"}, 0, "--webhook-service"},
		{"bad secret", []string{"--webhooks=service", "--webhook-cert-secret=tls", "--webhook-service=kube-system/w"}, 0, "namespace/name"},
		{"files too", []string{"--webhooks=service", "--webhook-cert-secret=kube-system/tls", "--webhook-service=kube-system/w",
			"--webhook-tls-cert-file=/tls.crt", "--webhook-tls-private-key-file=/tls.key"}, 0, "exclude each other"},
		{"no configuration", []string{"--webhooks=service", "--webhook-cert-secret=kube-system/tls", "--webhook-service=kube-system/w"}, 0, "--webhook-configuration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := ccmOptions(t)
			hooks := &webhookFlags{}
			cmd := newCommand(t.Context(), opts, nil, hooks)
			args := append([]string{"--kubeconfig=" + kubeconfig(t), "--secure-port=0", "--webhook-bind-address=127.0.0.1",
				"--webhook-secure-port=" + strconv.Itoa(freePort(t))}, tc.args...)
			if err := cmd.Flags().Parse(args); err != nil {
				t.Fatal(err)
			}
			completed, err := completeConfig(opts, hooks)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("err %v, want one that says %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if completed.WebhookSecureServing != nil {
				t.Cleanup(func() { completed.WebhookSecureServing.Listener.Close() })
			}
			webhooks, err := hooks.handlers(t.Context(), completed, fake.NewClientset(), nil)
			if err != nil || len(webhooks) != tc.hooks {
				t.Errorf("%d webhooks (%v), want %d", len(webhooks), err, tc.hooks)
			}
		})
	}
}

// ccmOptions are the controller manager's options as main sets them.
func ccmOptions(t *testing.T) *options.CloudControllerManagerOptions {
	t.Helper()
	opts, err := options.NewCloudControllerManagerOptions()
	if err != nil {
		t.Fatal(err)
	}
	opts.KubeCloudShared.CloudProvider.Name = "hcloud"
	return opts
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// kubeconfig names an API server that is never called.
func kubeconfig(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func caBundle(t *testing.T, kube *fake.Clientset) []byte {
	t.Helper()
	v, err := kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(t.Context(), "hccm", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return v.Webhooks[0].ClientConfig.CABundle
}

func secretData(t *testing.T, kube *fake.Clientset) map[string][]byte {
	t.Helper()
	s, err := kube.CoreV1().Secrets("kube-system").Get(t.Context(), "hccm-webhook-tls", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s.Data
}

func pool(pem []byte) *x509.CertPool {
	p := x509.NewCertPool()
	p.AppendCertsFromPEM(pem)
	return p
}

// servedCert is the DER certificate served at addr when bundle trusts it
// for the webhook's host name, else nil.
func servedCert(t *testing.T, addr string, bundle []byte) []byte {
	t.Helper()
	if len(bundle) == 0 {
		return nil
	}
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool(bundle), ServerName: webhookHost})
	if err != nil {
		return nil
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].Raw
}

// firstPEM is the DER of the first PEM block.
func firstPEM(t *testing.T, b []byte) []byte {
	t.Helper()
	block, _ := pem.Decode(b)
	if block == nil {
		t.Fatal("no PEM")
	}
	return block.Bytes
}

// review is an AdmissionReview of the CREATE of a LoadBalancer Service.
func review(t *testing.T, annotations map[string]string) []byte {
	t.Helper()
	svc, err := json.Marshal(&corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "u-1", Annotations: annotations},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80, NodePort: 30080}}}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(&admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{UID: "req-7", Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Service"},
			Resource: metav1.GroupVersionResource{Version: "v1", Resource: "services"}, Namespace: "default", Name: "web",
			Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: svc}}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// post sends a review as the API server does and returns the response.
func post(t *testing.T, client *http.Client, addr string, body []byte) *admissionv1.AdmissionResponse {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "https://"+addr+"/validate-service", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Response == nil {
		t.Fatalf("status %d: %v", resp.StatusCode, err)
	}
	return out.Response
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("no %s within 10 s", what)
}
