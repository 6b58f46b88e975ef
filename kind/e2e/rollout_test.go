//go:build e2ekind

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// The rollout guard's log messages (package ccm/rollout).
const (
	guardOn       = "Rollout guard on"
	guardWaits    = "Rollout guard: waiting for the pods of older revisions to stop"
	guardStarts   = "Rollout guard: no older pod is left; starting"
	guardStops    = "Rollout guard: a newer revision does not wait for this pod; stopping now"
	waitsAnnotate = "hcloud-ccm.hcloudlab.dev/waits-for-older-pods"
)

// podRecord is what the test saw of one CCM pod: its log lines with the
// kubelet's timestamps (across container restarts), whether its template
// waits, and when the test first saw it terminating.
type podRecord struct {
	waits       bool
	lines       []logLine
	seen        map[string]bool
	terminating time.Time
}

type logLine struct {
	at   time.Time
	text string
}

// podWatch records every CCM pod while a rollout runs. Pods come and go
// within seconds, so their logs are followed as they are written.
type podWatch struct {
	mu   sync.Mutex
	pods map[string]*podRecord
}

func watchPods(ctx context.Context) *podWatch {
	w := &podWatch{pods: map[string]*podRecord{}}
	ready := make(chan struct{})
	go func() {
		// A watch, not polling: when a pod began terminating is known to
		// the millisecond, well before it is gone.
		for ctx.Err() == nil {
			pods, err := cluster.kube.CoreV1().Pods("kube-system").List(ctx, metav1.ListOptions{LabelSelector: ccmSelector})
			if err != nil {
				time.Sleep(200 * time.Millisecond)
				continue
			}
			for i := range pods.Items {
				w.saw(ctx, &pods.Items[i])
			}
			select {
			case <-ready:
			default:
				close(ready)
			}
			watch, err := cluster.kube.CoreV1().Pods("kube-system").Watch(ctx, metav1.ListOptions{LabelSelector: ccmSelector, ResourceVersion: pods.ResourceVersion})
			if err != nil {
				continue
			}
			for ev := range watch.ResultChan() {
				if p, ok := ev.Object.(*corev1.Pod); ok {
					w.saw(ctx, p)
				}
			}
		}
	}()
	<-ready
	return w
}

// saw records a pod, following its log when it is new.
func (w *podWatch) saw(ctx context.Context, p *corev1.Pod) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.pods[p.Name]
	if r == nil {
		_, waits := p.Annotations[waitsAnnotate]
		r = &podRecord{waits: waits, seen: map[string]bool{}}
		w.pods[p.Name] = r
		go w.follow(ctx, p.Name)
	}
	if p.DeletionTimestamp != nil && r.terminating.IsZero() {
		r.terminating = time.Now()
	}
}

// follow reads a pod's log until the pod is gone, again after each
// container exit (a restarted container's log is new).
func (w *podWatch) follow(ctx context.Context, pod string) {
	for ctx.Err() == nil {
		rc, err := cluster.kube.CoreV1().Pods("kube-system").GetLogs(pod, &corev1.PodLogOptions{Follow: true, Timestamps: true}).Stream(ctx)
		if apierrors.IsNotFound(err) {
			return
		}
		if err == nil {
			sc := bufio.NewScanner(rc)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				w.add(pod, sc.Text())
			}
			rc.Close()
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func (w *podWatch) add(pod, line string) {
	ts, text, ok := strings.Cut(line, " ")
	at, err := time.Parse(time.RFC3339Nano, ts)
	if !ok || err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.pods[pod]
	if !r.seen[line] {
		r.seen[line] = true
		r.lines = append(r.lines, logLine{at, text})
	}
}

// first is when pod first logged a line containing sub.
func (w *podWatch) first(pod, sub string) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range w.pods[pod].lines {
		if strings.Contains(l.text, sub) {
			return l.at, true
		}
	}
	return time.Time{}, false
}

// names are the recorded pods whose template waits (this CCM's) or not.
func (w *podWatch) names(waits bool) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for name, r := range w.pods {
		if r.waits == waits {
			out = append(out, name)
		}
	}
	return out
}

func (w *podWatch) record(pod string) podRecord {
	w.mu.Lock()
	defer w.mu.Unlock()
	return *w.pods[pod]
}

// checkUpgrade: helm upgrade from the official chart's release starts this
// CCM's pods beside the official one (the default RollingUpdate), but they
// start their controllers only after the official pod began terminating
// and is gone; then one of them holds the Lease.
func checkUpgrade(t *testing.T, ctx context.Context) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := watchPods(wctx)
	if err := fakecloudtest.Wait(30*time.Second, func() bool { return len(w.names(false)) == 1 }); err != nil {
		t.Fatalf("no official pod seen: %v", err)
	}
	official := w.names(false)[0]
	start := time.Now()
	if err := upgradeToThisCCM(ctx, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	var ours []string
	if err := fakecloudtest.Wait(4*time.Minute, func() bool {
		ours = w.names(true)
		started := 0
		for _, p := range ours {
			if _, ok := w.first(p, guardStarts); ok {
				started++
			}
		}
		_, err := cluster.kube.CoreV1().Pods("kube-system").Get(ctx, official, metav1.GetOptions{})
		return apierrors.IsNotFound(err) && started == 2 && leaseHolder(ctx) != ""
	}); err != nil {
		t.Fatalf("this CCM's pods %v did not both start and lead after the official pod %s went: %v", ours, official, err)
	}
	gone := w.record(official).terminating
	for _, p := range ours {
		waited, ok := w.first(p, guardWaits)
		started, _ := w.first(p, guardStarts)
		if !ok {
			t.Errorf("pod %s never waited for the official pod %s", p, official)
		}
		if gone.IsZero() || !started.After(gone) {
			t.Errorf("pod %s started its controllers at %s, the official pod %s terminated at %s", p, started.Format(time.StampMicro), official, gone.Format(time.StampMicro))
		}
		logf("pod %s: waited from %s, started %s after the official pod began terminating", p, waited.Format(time.StampMilli), started.Sub(gone).Round(time.Millisecond))
	}
	// The image came from the release's registry: nothing else has it.
	image := os.Getenv("E2E_KIND_REGISTRY") + "/hcloud-ccm@sha256:"
	for _, p := range ours {
		pod, err := cluster.kube.CoreV1().Pods("kube-system").Get(ctx, p, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cs := pod.Status.ContainerStatuses; len(cs) == 0 || !strings.HasPrefix(cs[0].ImageID, image) {
			t.Errorf("pod %s: image not pulled from the registry (%s…): %+v", p, image, cs)
		}
	}
	logf("helm upgrade from the official chart: this CCM leads %s later, lease holder %s", time.Since(start).Round(time.Millisecond), leaseHolder(ctx))
}

// checkRollback: helm rollback to the official chart's release stops this
// CCM's pods (giving the Lease back) before the official pod's process
// starts, so the official CCM, without leader election, never runs beside
// them.
func checkRollback(t *testing.T, ctx context.Context) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The step before deleted a node: its replica starts again elsewhere.
	if err := fakecloudtest.Wait(3*time.Minute, func() bool { return ccmReplicasReady(ctx) }); err != nil {
		t.Fatalf("CCM replicas not all ready: %v", err)
	}
	w := watchPods(wctx)
	var ours []string
	if err := fakecloudtest.Wait(30*time.Second, func() bool {
		ours = slices.DeleteFunc(w.names(true), func(p string) bool { return len(w.record(p).lines) == 0 })
		return len(ours) == 2
	}); err != nil {
		t.Fatalf("this CCM's running pods %v, want 2: %v", ours, err)
	}
	if err := helm(ctx, "rollback", "hccm", "1"); err != nil {
		t.Fatal(err)
	}
	var official string
	var began time.Time
	if err := fakecloudtest.Wait(3*time.Minute, func() bool {
		if names := w.names(false); len(names) == 1 {
			official = names[0]
			r := w.record(official)
			if len(r.lines) > 0 {
				began = r.lines[0].at
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("the official pod did not start after the rollback: %v", err)
	}
	stoppedPods := 0
	for _, p := range ours {
		// Each pod's log comes on its own stream: a line logged before
		// the official pod's first may arrive after it.
		var stopped time.Time
		var ok bool
		_ = fakecloudtest.Wait(15*time.Second, func() bool { stopped, ok = w.first(p, guardStops); return ok })
		if _, on := w.first(p, guardOn); !on && !ok {
			// A pod whose guard has not started yet (its apiserver does
			// not answer) has not started its controllers either.
			if _, led := w.first(p, "acquired lease"); led {
				t.Errorf("pod %s led without its guard; its log:\n%s", p, fmt.Sprint(w.record(p).lines))
			}
			logf("pod %s: its guard had not started, nor its controllers", p)
			continue
		}
		if _, led := w.first(p, "acquired lease"); !ok && !led {
			// Stopped by the rollout before its guard saw the newer
			// revision: a replica that never led never acted.
			logf("pod %s: stopped without its guard's line, and it never led", p)
			continue
		}
		if !ok {
			t.Errorf("pod %s never stopped for the rollback; its log:\n%s", p, fmt.Sprint(w.record(p).lines))
			continue
		}
		stoppedPods++
		if !stopped.Before(began) {
			t.Errorf("pod %s stopped at %s, after the official pod %s began at %s", p, stopped.Format(time.StampMicro), official, began.Format(time.StampMicro))
		}
		logf("pod %s stopped %s before the official pod's first log line", p, began.Sub(stopped).Round(time.Millisecond))
	}
	if stoppedPods == 0 {
		t.Error("no pod of this CCM stopped for the rollback")
	}
	if err := fakecloudtest.Wait(30*time.Second, func() bool { return leaseHolder(ctx) == "" }); err != nil {
		t.Errorf("the Lease is still held by %q after the rollback", leaseHolder(ctx))
	}
}
