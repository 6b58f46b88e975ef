package leaderlease

import (
	"errors"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

func lease(holder string) *coordinationv1.Lease {
	now := metav1.NewMicroTime(time.Now())
	return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "cloud-controller-manager"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(holder), LeaseDurationSeconds: ptr.To(int32(15)), RenewTime: &now, LeaseTransitions: ptr.To(int32(3))}}
}

func holderOf(t *testing.T, l *Lease) (string, int32) {
	t.Helper()
	got, err := l.kube.CoordinationV1().Leases("kube-system").Get(t.Context(), "cloud-controller-manager", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return *got.Spec.HolderIdentity, *got.Spec.LeaseDurationSeconds
}

func TestReleaseGivesUpOwnLease(t *testing.T) {
	l := &Lease{kube: fake.NewClientset(lease("pod-a_1234")), namespace: "kube-system", name: "cloud-controller-manager"}
	l.Acquired(t.Context())
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if holder, d := holderOf(t, l); holder != "" || d != 1 {
		t.Errorf("after release: holder %q, duration %ds; want none, 1s", holder, d)
	}
}

func TestReleaseLeavesOthersLease(t *testing.T) {
	l := &Lease{kube: fake.NewClientset(lease("pod-a_1234")), namespace: "kube-system", name: "cloud-controller-manager"}
	l.Acquired(t.Context())
	// Another replica took over meanwhile.
	if _, err := l.kube.CoordinationV1().Leases("kube-system").Update(t.Context(), lease("pod-b_5678"), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if holder, d := holderOf(t, l); holder != "pod-b_5678" || d != 15 {
		t.Errorf("after release: holder %q, duration %ds; want pod-b_5678's lease untouched", holder, d)
	}
}

func TestReleaseWithoutLeadingTouchesNothing(t *testing.T) {
	l := &Lease{kube: fake.NewClientset(lease("pod-b_5678")), namespace: "kube-system", name: "cloud-controller-manager"}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if holder, _ := holderOf(t, l); holder != "pod-b_5678" {
		t.Errorf("a replica that never led released the lease: holder %q", holder)
	}
}

// Liveness fails while this process believes it leads and the lease says
// otherwise, and passes once it says so again.
func TestLeaseCheck(t *testing.T) {
	kube := fake.NewClientset(lease("pod-a_1234"))
	l := &Lease{kube: kube, namespace: "kube-system", name: "cloud-controller-manager"}
	if err := l.Check(t.Context()); err != nil {
		t.Errorf("before leading: %v", err)
	}
	l.Acquired(t.Context())
	if err := l.Check(t.Context()); err != nil {
		t.Errorf("leading a fresh lease: %v", err)
	}
	update := func(lease *coordinationv1.Lease) {
		t.Helper()
		if _, err := kube.CoordinationV1().Leases("kube-system").Update(t.Context(), lease, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	update(lease("pod-b_5678"))
	if err := l.Check(t.Context()); err == nil || !strings.Contains(err.Error(), "pod-b_5678") {
		t.Errorf("lease taken over: %v, want an error naming the holder", err)
	}
	old := lease("pod-a_1234")
	old.Spec.RenewTime = &metav1.MicroTime{Time: time.Now().Add(-time.Minute)}
	update(old)
	if err := l.Check(t.Context()); err == nil || !strings.Contains(err.Error(), "last renewed") {
		t.Errorf("lease not renewed for a minute: %v, want an error", err)
	}
	update(lease("pod-a_1234"))
	if err := l.Check(t.Context()); err != nil {
		t.Errorf("renewed again: %v", err)
	}
}

// TestReleaseSurvivesARenewal: the leader election renews the lease
// between Release's read and its write (the write conflicts); Release
// reads it again and still gives it back.
func TestReleaseSurvivesARenewal(t *testing.T) {
	kube := fake.NewClientset(lease("pod-a_1234"))
	conflicts := 2
	kube.PrependReactor("update", "leases", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if conflicts == 0 {
			return false, nil, nil
		}
		conflicts--
		return true, nil, apierrors.NewConflict(coordinationv1.Resource("leases"), "cloud-controller-manager", errors.New("the object has been modified"))
	})
	l := &Lease{kube: kube, namespace: "kube-system", name: "cloud-controller-manager"}
	l.Acquired(t.Context())
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if holder, d := holderOf(t, l); holder != "" || d != 1 {
		t.Errorf("after release: holder %q, duration %ds; want none, 1s", holder, d)
	}
}
