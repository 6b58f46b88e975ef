package rollout

import (
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

const deployment = types.UID("dep")

// replicaSet is ReplicaSet name of owner at revision; waits sets the
// annotation of pods that take turns.
func replicaSet(name string, owner types.UID, rev int, waits bool) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: "kube-system", UID: types.UID(name),
		Annotations:     map[string]string{revisionAnnotation: strconv.Itoa(rev)},
		OwnerReferences: []metav1.OwnerReference{{Kind: "Deployment", Name: string(owner), UID: owner, Controller: ptr.To(true)}},
	}}
	if waits {
		rs.Spec.Template.Annotations = map[string]string{WaitsAnnotation: "true"}
	}
	return rs
}

func pod(name, rs string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "kube-system", UID: types.UID(name),
			OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: rs, UID: types.UID(rs), Controller: ptr.To(true)}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
}

func TestDecide(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	official := replicaSet("official", deployment, 1, false)
	ours := replicaSet("ours", deployment, 2, true)
	terminating := func(p *corev1.Pod, ago time.Duration) *corev1.Pod {
		p.DeletionTimestamp = &metav1.Time{Time: now.Add(-ago)}
		return p
	}
	finished := pod("official-done", "official")
	finished.Status.Phase = corev1.PodSucceeded
	for _, tc := range []struct {
		name     string
		own      string
		sets     []*appsv1.ReplicaSet
		pods     []*corev1.Pod
		want     state
		blocking []string
	}{
		{"alone", "ours", []*appsv1.ReplicaSet{official, ours}, []*corev1.Pod{pod("ours-a", "ours"), pod("ours-b", "ours")}, act, nil},
		{"upgrade from the official CCM", "ours", []*appsv1.ReplicaSet{official, ours},
			[]*corev1.Pod{pod("ours-a", "ours"), pod("official-x", "official")}, wait, []string{"official-x"}},
		{"older pod terminating", "ours", []*appsv1.ReplicaSet{official, ours},
			[]*corev1.Pod{terminating(pod("official-x", "official"), 0)}, wait, []string{"official-x"}},
		{"older pod terminating long past its deadline (node gone)", "ours", []*appsv1.ReplicaSet{official, ours},
			[]*corev1.Pod{terminating(pod("official-x", "official"), 2*time.Minute)}, act, nil},
		{"older pod finished", "ours", []*appsv1.ReplicaSet{official, ours}, []*corev1.Pod{finished}, act, nil},
		{"another Deployment's pods", "ours",
			[]*appsv1.ReplicaSet{official, ours, replicaSet("coredns", "coredns-dep", 1, false)},
			[]*corev1.Pod{pod("coredns-x", "coredns"), pod("bare", "none")}, act, nil},
		{"another Deployment's newer revision", "ours",
			[]*appsv1.ReplicaSet{ours, replicaSet("coredns", "coredns-dep", 9, false)}, nil, act, nil},
		{"rollback to the official CCM", "ours",
			[]*appsv1.ReplicaSet{replicaSet("official", deployment, 3, false), ours}, nil, standDown, nil},
		{"upgrade to a newer release of this CCM", "ours",
			[]*appsv1.ReplicaSet{official, ours, replicaSet("ours-next", deployment, 3, true)}, nil, superseded, nil},
		{"the official pod sees this CCM's revision", "official", []*appsv1.ReplicaSet{official, ours}, nil, superseded, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, blocking := decide(types.UID(tc.own), deployment, tc.sets, tc.pods, now)
			if got != tc.want || !cmp.Equal(blocking, tc.blocking) {
				t.Errorf("decide = %v %v, want %v %v", got, blocking, tc.want, tc.blocking)
			}
		})
	}
}
