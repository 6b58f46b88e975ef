package rollout

import (
	"context"
	"errors"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// A pod of the new revision waits while the official CCM's pod runs and
// starts once it is deleted.
func TestWaitForTheOlderPod(t *testing.T) {
	kube := fake.NewClientset(
		replicaSet("official", deployment, 1, false), replicaSet("ours", deployment, 2, true),
		pod("official-x", "official"), pod("ours-a", "ours"))
	g, err := New(t.Context(), kube, "kube-system", "ours-a")
	if err != nil || g == nil {
		t.Fatalf("New = %v, %v", g, err)
	}
	done := make(chan error, 1)
	go func() { done <- g.Wait(t.Context()) }()
	select {
	case err := <-done:
		t.Fatalf("Wait returned %v while the official pod runs", err)
	case <-time.After(200 * time.Millisecond):
	}
	if err := kube.CoreV1().Pods("kube-system").Delete(t.Context(), "official-x", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Wait = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not return after the official pod was deleted")
	}
}

// Wait ends with its context.
func TestWaitEndsWithItsContext(t *testing.T) {
	kube := fake.NewClientset(
		replicaSet("official", deployment, 1, false), replicaSet("ours", deployment, 2, true),
		pod("official-x", "official"), pod("ours-a", "ours"))
	g, err := New(t.Context(), kube, "kube-system", "ours-a")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if err := g.Wait(ctx); err == nil {
		t.Fatal("Wait returned nil while the official pod runs")
	}
}

// A rollback to the official CCM stops this CCM's pods at once; an
// upgrade to a revision whose pods wait does not.
func TestWatchStandsDownForARevisionThatDoesNotWait(t *testing.T) {
	kube := fake.NewClientset(replicaSet("ours", deployment, 2, true), pod("ours-a", "ours"))
	g, err := New(t.Context(), kube, "kube-system", "ours-a")
	if err != nil {
		t.Fatal(err)
	}
	stopped := make(chan struct{})
	go g.Watch(t.Context(), func() { close(stopped) })
	sets := kube.AppsV1().ReplicaSets("kube-system")
	if _, err := sets.Create(t.Context(), replicaSet("ours-next", deployment, 3, true), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stopped:
		t.Fatal("stopped for a newer revision whose pods wait")
	case <-time.After(200 * time.Millisecond):
	}
	rollback := replicaSet("official", deployment, 4, false)
	if _, err := sets.Create(t.Context(), rollback, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("not stopped after the rollback to the official CCM")
	}
}

// Outside a Deployment (a DaemonSet's pod) the guard is off.
func TestGuardOffOutsideADeployment(t *testing.T) {
	p := pod("ds-x", "ds")
	p.OwnerReferences[0].Kind = "DaemonSet"
	g, err := New(t.Context(), fake.NewClientset(p), "kube-system", "ds-x")
	if g != nil || err != nil {
		t.Fatalf("New = %v, %v; want nil, nil", g, err)
	}
	if _, err := New(t.Context(), fake.NewClientset(), "kube-system", "missing"); err == nil {
		t.Fatal("New found a pod that does not exist")
	}
}

// A Role that allows reading the pod but not listing is an error, not a
// start that never ends.
func TestNewFailsWithoutList(t *testing.T) {
	kube := fake.NewClientset(replicaSet("ours", deployment, 2, true), pod("ours-a", "ours"))
	kube.PrependReactor("list", "*", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("no list"))
	})
	if g, err := New(t.Context(), kube, "kube-system", "ours-a"); !apierrors.IsForbidden(err) {
		t.Fatalf("New = %v, %v with list forbidden", g, err)
	}
}

// An apiserver that does not answer yet is asked again, not taken as a
// reason to run without the guard.
func TestNewWaitsForTheAPIServer(t *testing.T) {
	kube := fake.NewClientset(replicaSet("ours", deployment, 2, true), pod("ours-a", "ours"))
	fails := 2
	kube.PrependReactor("get", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		if fails > 0 {
			fails--
			return true, nil, errors.New("dial tcp 10.96.0.1:443: connect: connection refused")
		}
		return false, nil, nil
	})
	defer func(d time.Duration) { retryEvery = d }(retryEvery)
	retryEvery = 10 * time.Millisecond
	if g, err := New(t.Context(), kube, "kube-system", "ours-a"); g == nil || err != nil {
		t.Fatalf("New = %v, %v after two refused connections", g, err)
	}
	if fails != 0 {
		t.Fatalf("%d failures left", fails)
	}
}
