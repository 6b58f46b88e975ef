// Package rollout keeps two revisions of the CCM's Deployment from acting
// at once while a rollout replaces one with the other.
//
// A Deployment updated with its default strategy, RollingUpdate, starts the
// new pods before it stops the old ones. When the old pods share the new
// ones' leader election Lease that is harmless, but the official chart runs
// one replica with --leader-elect=false, and so does this one with
// replicaCount 1: an upgrade from such a release, or a rollback to it,
// would run two CCMs side by side. The Recreate strategy avoids that but
// cannot be applied server-side over a Deployment created with the default
// one (its defaulted rollingUpdate stays, owned by its creator), which is
// how Helm 4, Flux and Argo CD apply. So the Deployment keeps the default
// strategy, and its pods take turns:
//
//   - A pod of the newest revision waits, ready but idle, until no pod of an
//     older revision is left, then starts its controllers (Wait).
//   - A pod whose revision is superseded by one whose pods do not wait
//     (WaitsAnnotation is missing on their template: the official CCM, or
//     a rollback to it) stops at once, before the new pods can start
//     (Watch); one superseded by a revision that waits keeps working until
//     it is stopped, so the rollout leaves no gap longer than a pod's exit.
//
// The revision is the Deployment controller's deployment.kubernetes.io/revision
// annotation of each ReplicaSet; a rollback gives the ReplicaSet it brings
// back the highest one. Outside a Deployment's pod the guard is off.
package rollout

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// WaitsAnnotation on a pod template says that its pods wait for older
// revisions' pods to be gone before they act; the chart sets it.
const WaitsAnnotation = "hcloud-ccm.hcloudlab.dev/waits-for-older-pods"

const revisionAnnotation = "deployment.kubernetes.io/revision"

// stuckAfter is how long past its deletion deadline a terminating pod may
// remain before it no longer counts: its kubelet is gone (the node is
// down or partitioned), so it cannot be running its controllers against
// this apiserver, and waiting for the node to be removed would wait for the
// CCM itself.
const stuckAfter = time.Minute

// state is what a pod of one revision may do now.
type state int

const (
	act        state = iota // newest revision, no older pod left
	wait                    // newest revision, older pods still run
	superseded              // a newer revision exists whose pods wait for this one
	standDown               // a newer revision exists whose pods do not wait
)

func (s state) String() string {
	return [...]string{"act", "wait", "superseded", "stand down"}[s]
}

// decide is the state of the pods of ReplicaSet own, given the ReplicaSets
// and pods of the namespace; blocking names the older pods it waits for.
func decide(own types.UID, owner types.UID, sets []*appsv1.ReplicaSet, pods []*corev1.Pod, now time.Time) (s state, blocking []string) {
	ownRevision, newest := int64(-1), (*appsv1.ReplicaSet)(nil)
	siblings := map[types.UID]bool{}
	for _, rs := range sets {
		if controller(rs.OwnerReferences) != owner {
			continue
		}
		siblings[rs.UID] = true
		r := revision(rs)
		if rs.UID == own {
			ownRevision = r
		}
		if newest == nil || r > revision(newest) {
			newest = rs
		}
	}
	if newest != nil && newest.UID != own && revision(newest) > ownRevision {
		if _, ok := newest.Spec.Template.Annotations[WaitsAnnotation]; ok {
			return superseded, nil
		}
		return standDown, nil
	}
	for _, p := range pods {
		rs := controller(p.OwnerReferences)
		if rs == own || !siblings[rs] || done(p, now) {
			continue
		}
		blocking = append(blocking, p.Name)
	}
	slices.Sort(blocking)
	if len(blocking) > 0 {
		return wait, blocking
	}
	return act, nil
}

// done says a pod cannot be running the CCM any more: its containers
// ended, or it has been terminating long past its deadline.
func done(p *corev1.Pod, now time.Time) bool {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return true
	}
	return p.DeletionTimestamp != nil && now.Sub(p.DeletionTimestamp.Time) > stuckAfter
}

func controller(refs []metav1.OwnerReference) types.UID {
	for _, r := range refs {
		if r.Controller != nil && *r.Controller {
			return r.UID
		}
	}
	return ""
}

// revision is a ReplicaSet's revision; one without a readable annotation
// (not yet annotated by the Deployment controller) counts as 0.
func revision(rs *appsv1.ReplicaSet) int64 {
	r, err := strconv.ParseInt(rs.Annotations[revisionAnnotation], 10, 64)
	if err != nil {
		return 0
	}
	return r
}

// describe is a ReplicaSet for the log: its name and revision.
func describe(rs *appsv1.ReplicaSet) string {
	return fmt.Sprintf("%s (revision %d)", rs.Name, revision(rs))
}
