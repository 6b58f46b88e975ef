//go:build e2ekind

package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
	"github.com/hcloudlab/hcloud-ccm/internal/testcert"
)

// secretCertificate: an operator lets the CCM read Secrets in default
// (helm upgrade --reuse-values --set rbac.certificateSecretNamespaces);
// Service web gets an https port whose certificate a kubernetes.io/tls
// Secret holds, beside its plain http port (options per port). The load
// balancer serves the Secret's certificate; renewed, the new one; the
// port gone, the uploads are deleted.
func secretCertificate(t *testing.T, ctx context.Context, httpPort int) {
	if err := helm(ctx, "upgrade", "hccm", "oci://"+os.Getenv("E2E_KIND_REGISTRY")+"/charts/hcloud-ccm",
		"--version", strings.TrimPrefix(os.Getenv("E2E_KIND_RELEASE"), "v"), "--plain-http", "--reuse-values",
		"--set", "rbac.certificateSecretNamespaces={default}"); err != nil {
		t.Fatal(err)
	}
	pair := testcert.New(t, "web.example")
	fp := pair.Fingerprint
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "web-tls", Namespace: "default"}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{corev1.TLSCertKey: []byte(pair.CertPEM), corev1.TLSPrivateKeyKey: []byte(pair.KeyPEM)}}
	if _, err := cluster.kube.CoreV1().Secrets("default").Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer cluster.kube.CoreV1().Secrets("default").Delete(ctx, "web-tls", metav1.DeleteOptions{})
	const https = 8443
	updateService(t, ctx, func(s *corev1.Service) {
		s.Spec.Ports[0].Name = "http"
		s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: "https", Port: https, TargetPort: intstr.FromInt32(8080)})
		s.Annotations["load-balancer.hetzner.cloud/port-https.protocol"] = "https"
		s.Annotations["load-balancer.hetzner.cloud/port-https.http-certificate-secrets"] = "web-tls"
		// The pods answer plain http behind the load balancer's TLS: the
		// check of that port is TCP, the other port's stays as it is.
		s.Annotations["load-balancer.hetzner.cloud/port-https.health-check-protocol"] = "tcp"
	})
	defer func() {
		updateService(t, ctx, func(s *corev1.Service) {
			s.Spec.Ports = slices.DeleteFunc(s.Spec.Ports, func(p corev1.ServicePort) bool { return p.Name == "https" })
			delete(s.Annotations, "load-balancer.hetzner.cloud/port-https.protocol")
			delete(s.Annotations, "load-balancer.hetzner.cloud/port-https.http-certificate-secrets")
			delete(s.Annotations, "load-balancer.hetzner.cloud/port-https.health-check-protocol")
		})
		if err := fakecloudtest.Wait(2*time.Minute, func() bool { c, err := cluster.cloud.Client.Certificate.All(ctx); return err == nil && len(c) == 0 }); err != nil {
			t.Errorf("the Secret's uploads left once no port names it: %v", err)
		}
	}()
	pods, err := echoPods(ctx)
	if err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("https://%s:%d/", ingress(ctx, "web"), https)
	if err := fakecloudtest.Wait(2*time.Minute, func() bool { got, err := servedCert(url, pods); return err == nil && got == fp }); err != nil {
		got, serr := servedCert(url, pods)
		t.Fatalf("%s serves %s (%v), want the Secret's %s: %v", url, got, serr, fp, err)
	}
	if err := allServed(fmt.Sprintf("http://%s:%d/", ingress(ctx, "web"), httpPort), 5, pods); err != nil {
		t.Fatalf("the http port beside it: %v", err)
	}
	logf("port %d serves the certificate of Secret web-tls (%s…), port %d plain http", https, fp[:12], httpPort)

	pair = testcert.New(t, "web.example")
	renewed := pair.Fingerprint
	secret.Data = map[string][]byte{corev1.TLSCertKey: []byte(pair.CertPEM), corev1.TLSPrivateKeyKey: []byte(pair.KeyPEM)}
	if _, err := cluster.kube.CoreV1().Secrets("default").Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := fakecloudtest.Wait(2*time.Minute, func() bool { got, err := servedCert(url, pods); return err == nil && got == renewed }); err != nil {
		t.Fatalf("the renewed certificate %s not served: %v", renewed, err)
	}
	logf("the renewed certificate served %s after the Secret changed", time.Since(start).Round(time.Millisecond))
}

// servedCert asks url once over https and returns the fingerprint of
// the certificate served, the answer coming from a pod of want.
func servedCert(url string, want map[string]string) (string, error) {
	var fp string
	client := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{DisableKeepAlives: true,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, VerifyConnection: func(cs tls.ConnectionState) error { //nolint:gosec // the fingerprint is what is checked
			fp = testcert.Fingerprint(cs.PeerCertificates[0].Raw)
			return nil
		}}}}
	resp, err := client.Get(url)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fp, fmt.Errorf("%s: %s", url, resp.Status)
	}
	return fp, nil
}
