//go:build e2ekind

package e2e

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// The DNS scenario: fakecloud answers the zones written through its API
// (--dns-listen); the cluster's CoreDNS forwards one zone to it, as an
// operator forwards a zone to Hetzner's nameservers; a pod resolves a
// record the test wrote, and the record's change.

// e2eZone is the zone the scenario writes.
const e2eZone = "hcloud-ccm-e2e.com"

func podResolvesTheAPIsRecords(t *testing.T, ctx context.Context) {
	res, _, err := cluster.cloud.Client.Zone.Create(ctx, hcloud.ZoneCreateOpts{Name: e2eZone, Mode: hcloud.ZoneModePrimary,
		RRSets: []hcloud.ZoneCreateOptsRRSet{{Name: "www", Type: "A", TTL: hcloud.Ptr(60), Records: []hcloud.ZoneRRSetRecord{{Value: "203.0.113.7"}}}}})
	if err := wait(res.Action, nil, err); err != nil {
		t.Fatalf("zone %s: %v", e2eZone, err)
	}
	if err := forwardZone(ctx, e2eZone, cluster.dnsAddr); err != nil {
		t.Fatal(err)
	}
	name := "www." + e2eZone
	start := time.Now()
	expectResolved(t, ctx, name+".", "203.0.113.7")
	logf("a pod resolves %s through CoreDNS and fakecloud %s after the zone was forwarded", name, time.Since(start).Round(time.Millisecond))

	rrset := &hcloud.ZoneRRSet{Zone: res.Zone, Name: "www", Type: "A"}
	a, _, err := cluster.cloud.Client.Zone.SetRRSetRecords(ctx, rrset, hcloud.ZoneRRSetSetRecordsOpts{Records: []hcloud.ZoneRRSetRecord{{Value: "203.0.113.8"}}})
	if err := wait(a, nil, err); err != nil {
		t.Fatal(err)
	}
	expectResolved(t, ctx, name+".", "203.0.113.8")
}

// expectResolved waits, for at most two minutes, until a pod resolves
// name to want.
func expectResolved(t *testing.T, ctx context.Context, name, want string) {
	t.Helper()
	var got string
	var err error
	if werr := fakecloudtest.Wait(2*time.Minute, func() bool {
		got, err = resolveInPod(ctx, name)
		return err == nil && got == want
	}); werr != nil {
		t.Fatalf("a pod resolves %s to %q (%v), want %s", name, got, err, want)
	}
}

// forwardZone adds a server block for zone to CoreDNS's Corefile that
// forwards it to addr, and restarts CoreDNS's pods to read it.
func forwardZone(ctx context.Context, zone, addr string) error {
	cms := cluster.kube.CoreV1().ConfigMaps("kube-system")
	cm, err := cms.Get(ctx, "coredns", metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("CoreDNS's ConfigMap: %w", err)
	}
	if !strings.Contains(cm.Data["Corefile"], zone+":53") {
		cm.Data["Corefile"] += fmt.Sprintf("%s:53 {\n    errors\n    forward . %s\n}\n", zone, addr)
		if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	pods := cluster.kube.CoreV1().Pods("kube-system")
	if err := pods.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "k8s-app=kube-dns"}); err != nil {
		return err
	}
	return fakecloudtest.Wait(2*time.Minute, func() bool {
		d, err := cluster.kube.AppsV1().Deployments("kube-system").Get(ctx, "coredns", metav1.GetOptions{})
		return err == nil && d.Status.ObservedGeneration >= d.Generation && d.Status.UpdatedReplicas == *d.Spec.Replicas &&
			d.Status.ReadyReplicas == *d.Spec.Replicas && d.Status.Replicas == *d.Spec.Replicas
	})
}

var resolvers int

// resolveInPod runs a pod that looks name up through the cluster's DNS
// and returns what it printed.
func resolveInPod(ctx context.Context, name string) (string, error) {
	resolvers++
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("resolve-%d", resolvers), Namespace: "default"}, Spec: corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{Name: "resolve", Image: "hcloud-ccm/echo:dev", ImagePullPolicy: corev1.PullNever,
			Args: []string{"-resolve", name}}},
	}}
	pods := cluster.kube.CoreV1().Pods("default")
	if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return "", err
	}
	defer func() {
		_ = pods.Delete(context.Background(), pod.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
	}()
	var phase corev1.PodPhase
	if err := fakecloudtest.Wait(time.Minute, func() bool {
		p, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		if err == nil {
			phase = p.Status.Phase
		}
		return phase == corev1.PodSucceeded || phase == corev1.PodFailed
	}); err != nil {
		return "", fmt.Errorf("pod %s did not finish (%s): %w", pod.Name, phase, err)
	}
	rc, err := pods.GetLogs(pod.Name, &corev1.PodLogOptions{}).Stream(ctx)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	out, err := io.ReadAll(io.LimitReader(rc, 4096))
	if err != nil {
		return "", err
	}
	if phase == corev1.PodFailed {
		return "", fmt.Errorf("pod %s failed: %s", pod.Name, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out)), nil
}
