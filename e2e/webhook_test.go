//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// TestServiceWebhook: the Service admission webhook on the real
// apiserver, installed from deploy/ccm-webhook.yaml with the certificate
// the CCM makes and keeps itself. A bad annotation is refused with its
// name and the accepted values, on CREATE and on an UPDATE that brings
// it; a good Service passes; with the CCM down a Service is accepted
// (fail open) within the webhook's timeout.
func TestServiceWebhook(t *testing.T) {
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	env := setup(t, func(o *harness.Options) {
		o.Manifests = filepath.Join(root(t), "deploy/ccm-webhook.yaml")
		// No kube-proxy here: the apiserver reaches the CCM on loopback, by
		// a URL whose host name the certificate carries, not by the Service.
		o.CCMArgs = append(o.CCMArgs, "--webhook-bind-address=127.0.0.1", fmt.Sprintf("--webhook-secure-port=%d", port),
			"--webhook-service=kube-system/localhost")
	})
	ctx := context.Background()
	vwcs := env.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	vwc, err := vwcs.Get(ctx, "hcloud-cloud-controller-manager", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("https://localhost:%d/validate-service", port)
	vwc.Webhooks[0].ClientConfig.Service, vwc.Webhooks[0].ClientConfig.URL = nil, &url
	if _, err := vwcs.Update(ctx, vwc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.StartCCM(ctx); err != nil {
		t.Fatal(err)
	}
	svcs := env.Kube.CoreV1().Services("default")
	typo := lbSvc("typo", map[string]string{"load-balancer.hetzner.cloud/algorithm-type": "fastest"})
	huge := lbSvc("huge", map[string]string{"load-balancer.hetzner.cloud/type": "lb99"})
	done := timed(t, "the CCM's certificate in the caBundle and served, the types listed")
	fakecloudtest.Eventually(t, time.Minute, "dry runs of a bad Service and of an unknown type refused", func() bool {
		dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
		_, err := svcs.Create(ctx, typo, dry)
		_, err2 := svcs.Create(ctx, huge, dry)
		return apierrors.IsForbidden(err) && apierrors.IsForbidden(err2)
	})
	done()

	refused := func(what string, err error, want ...string) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: accepted", what)
			return
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v; want it to name %q", what, err, w)
			}
		}
	}
	_, err = svcs.Create(ctx, typo, metav1.CreateOptions{})
	refused("a typo in algorithm-type", err, `admission webhook "services.hcloud-ccm.hetzner.cloud" denied the request`,
		"load-balancer.hetzner.cloud/algorithm-type", "fastest", "round_robin", "least_connections")
	_, err = svcs.Create(ctx, huge, metav1.CreateOptions{})
	refused("a load balancer type that does not exist (the types the CCM listed at start)", err, "load-balancer.hetzner.cloud/type", "lb99", "lb11")

	if _, err := svcs.Create(ctx, lbSvc("web", map[string]string{"load-balancer.hetzner.cloud/algorithm-type": "least_connections"}), metav1.CreateOptions{}); err != nil {
		t.Fatalf("a good Service refused: %v", err)
	}
	// The CCM writes the Service too (finalizer, status): on a conflict,
	// read it again.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		web := get(t, env, "web")
		web.Annotations["load-balancer.hetzner.cloud/health-check-interval"] = "1m30x"
		_, err := svcs.Update(ctx, web, metav1.UpdateOptions{})
		return err
	})
	refused("an update that brings a bad value", err, "load-balancer.hetzner.cloud/health-check-interval", "1m30x")

	if !env.StopCCM(0, 10*time.Second) {
		t.Fatal("the CCM did not stop cleanly")
	}
	start := time.Now()
	if _, err := svcs.Create(ctx, typo, metav1.CreateOptions{}); err != nil {
		t.Fatalf("with the CCM down a Service is refused: %v", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the create took %s with the CCM down, want at most the webhook's 5 s timeout", took)
	}
	t.Logf("a Service created with the CCM down: accepted after %s", time.Since(start).Round(time.Millisecond))
}
