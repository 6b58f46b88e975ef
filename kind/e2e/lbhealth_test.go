//go:build e2ekind

package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// healthReadOften has the CCM read its load balancers' target health
// every 5 s instead of every 5 min (a helm upgrade with the setting, as an
// operator turns it), and waits for the Service web's condition to say
// every target is healthy.
func healthReadOften(t *testing.T, ctx context.Context) {
	release := os.Getenv("E2E_KIND_RELEASE")
	if err := helm(ctx, "upgrade", "hccm", "oci://"+os.Getenv("E2E_KIND_REGISTRY")+"/charts/hcloud-ccm", "--version", strings.TrimPrefix(release, "v"),
		"--plain-http", "--reuse-values", "--set", "env.HCLOUD_LOAD_BALANCERS_TARGET_HEALTH_INTERVAL.value=5s"); err != nil {
		t.Fatal(err)
	}
	if err := fakecloudtest.Wait(3*time.Minute, func() bool { return ccmReplicasReady(ctx) && ccmPodsUpdated(ctx) }); err != nil {
		t.Fatalf("the CCM with HCLOUD_LOAD_BALANCERS_TARGET_HEALTH_INTERVAL did not roll out: %v", err)
	}
	waitWebHealth(t, ctx, metav1.ConditionTrue, loadbalancer.ReasonAllTargetsHealthy, "healthy")
}

// waitWebHealth waits for the Service web's target health condition.
func waitWebHealth(t *testing.T, ctx context.Context, status metav1.ConditionStatus, reason, msg string) {
	t.Helper()
	last := "none"
	if err := fakecloudtest.Wait(3*time.Minute, func() bool {
		s, err := cluster.kube.CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false
		}
		for _, c := range s.Status.Conditions {
			if c.Type == loadbalancer.ConditionTargetsHealthy {
				last = fmt.Sprintf("%s %s %q", c.Status, c.Reason, c.Message)
				return c.Status == status && c.Reason == reason && strings.Contains(c.Message, msg)
			}
		}
		return false
	}); err != nil {
		t.Fatalf("Service web: no condition %s %s %q (last: %s): %v", status, reason, msg, last, err)
	}
}

// waitWebEvent waits for an event of reason on the Service web whose
// message holds msg, last seen after since.
func waitWebEvent(t *testing.T, ctx context.Context, reason, msg string, since time.Time) {
	t.Helper()
	if err := fakecloudtest.Wait(2*time.Minute, func() bool {
		evs, err := cluster.kube.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=web,reason=" + reason})
		if err != nil {
			return false
		}
		for _, e := range evs.Items {
			if strings.Contains(e.Message, msg) && !e.LastTimestamp.Time.Before(since.Truncate(time.Second)) {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("Service web: no %s event with %q: %v", reason, msg, err)
	}
}
