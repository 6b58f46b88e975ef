//go:build e2ekind

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// The rotation scenario: the CCM reads its token from the Secret hcloud
// through a mounted file (HCLOUD_TOKEN_FILE, as the chart's values
// document); the Secret is rotated to a new token, the old one is
// revoked in fakecloud as in the Console, and the CCM goes on: no
// restart, no request refused, a new Service gets its load balancer.

var (
	firstToken   = strings.Repeat("1", 64)
	rotatedToken = strings.Repeat("2", 64)
)

// tokenFileValues switch the chart to HCLOUD_TOKEN_FILE on the Secret
// hcloud, key token.
const tokenFileValues = `env:
  HCLOUD_TOKEN: null
  HCLOUD_TOKEN_FILE:
    value: /var/run/secrets/hcloud/token
extraVolumes:
  - name: hcloud-token
    secret: {secretName: hcloud, items: [{key: token, path: token}]}
extraVolumeMounts:
  - {name: hcloud-token, mountPath: /var/run/secrets/hcloud, readOnly: true}
`

func tokenRotates(t *testing.T, ctx context.Context) {
	for _, tok := range []string{firstToken, rotatedToken} {
		if err := cluster.cloud.AddToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	setToken(t, ctx, firstToken)
	dir := t.TempDir()
	overlay := filepath.Join(dir, "token-file.yaml")
	if err := os.WriteFile(overlay, []byte(tokenFileValues), 0o600); err != nil {
		t.Fatal(err)
	}
	release := os.Getenv("E2E_KIND_RELEASE")
	if err := helm(ctx, "upgrade", "hccm", "oci://"+os.Getenv("E2E_KIND_REGISTRY")+"/charts/hcloud-ccm", "--version", strings.TrimPrefix(release, "v"),
		"--plain-http", "--reuse-values", "-f", overlay); err != nil {
		t.Fatal(err)
	}
	if err := fakecloudtest.Wait(3*time.Minute, func() bool { return ccmReplicasReady(ctx) && ccmPodsUpdated(ctx) }); err != nil {
		t.Fatalf("the CCM with HCLOUD_TOKEN_FILE did not roll out: %v", err)
	}
	before := ccmPods(t, ctx)

	start := time.Now()
	setToken(t, ctx, rotatedToken)
	if err := fakecloudtest.Wait(4*time.Minute, func() bool {
		return strings.Count(ccmLogs(t, ctx), "New credentials checked and in use") >= len(before)
	}); err != nil {
		t.Fatalf("the CCM did not take the rotated token: %v\n%s", err, grepLines(ccmLogs(t, ctx), "credentials"))
	}
	logf("every CCM pod took the rotated token %s after the Secret changed", time.Since(start).Round(time.Second))
	if err := cluster.cloud.RevokeToken(ctx, firstToken); err != nil {
		t.Fatal(err)
	}
	if err := cluster.cloud.ResetCounters(ctx); err != nil {
		t.Fatal(err)
	}

	// Work after the revocation: a load balancer made and deleted.
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "after-rotation", Namespace: "default",
		Annotations: map[string]string{"load-balancer.hetzner.cloud/location": "fsn1", "load-balancer.hetzner.cloud/use-private-ip": "true"}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Port: 8081, TargetPort: intstr.FromInt32(8080)}}}}
	if _, err := cluster.kube.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := fakecloudtest.Wait(2*time.Minute, func() bool { return ingress(ctx, svc.Name) != "" }); err != nil {
		t.Fatalf("no load balancer after the old token was revoked: %v", err)
	}
	if err := cluster.kube.CoreV1().Services("default").Delete(ctx, svc.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := fakecloudtest.Wait(2*time.Minute, func() bool {
		_, err := cluster.kube.CoreV1().Services("default").Get(ctx, svc.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}); err != nil {
		t.Fatalf("the Service's load balancer was not deleted after the rotation: %v", err)
	}
	if refused, err := cluster.cloud.RequestsWithStatus(ctx, "", 401); err != nil || refused != 0 {
		t.Errorf("%d requests refused 401 after the revocation (%v), want none", refused, err)
	}
	after := ccmPods(t, ctx)
	for name, restarts := range before {
		if after[name] != restarts {
			t.Errorf("pod %s: %d restarts before the rotation, %d after (present: %v)", name, restarts, after[name], after)
		}
	}
}

// setToken writes the Secret hcloud's key token.
func setToken(t *testing.T, ctx context.Context, token string) {
	t.Helper()
	s, err := cluster.kube.CoreV1().Secrets("kube-system").Get(ctx, "hcloud", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Data["token"] = []byte(token)
	if _, err := cluster.kube.CoreV1().Secrets("kube-system").Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// ccmPods are this CCM's pods and their containers' restarts.
func ccmPods(t *testing.T, ctx context.Context) map[string]int32 {
	t.Helper()
	pods, err := cluster.kube.CoreV1().Pods("kube-system").List(ctx, metav1.ListOptions{LabelSelector: ccmSelector})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int32{}
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil {
			continue
		}
		var restarts int32
		for _, c := range p.Status.ContainerStatuses {
			restarts += c.RestartCount
		}
		out[p.Name] = restarts
	}
	return out
}

// ccmPodsUpdated tells whether no pod of an older revision is left.
func ccmPodsUpdated(ctx context.Context) bool {
	d, err := cluster.kube.AppsV1().Deployments("kube-system").Get(ctx, "hcloud-cloud-controller-manager", metav1.GetOptions{})
	if err != nil || d.Spec.Replicas == nil {
		return false
	}
	pods, err := cluster.kube.CoreV1().Pods("kube-system").List(ctx, metav1.ListOptions{LabelSelector: ccmSelector})
	return err == nil && len(pods.Items) == int(*d.Spec.Replicas) && d.Status.ObservedGeneration >= d.Generation
}
