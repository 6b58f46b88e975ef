//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
)

// The CCM's objects are named after this, in both charts and all manifests.
const ccmName = "hcloud-cloud-controller-manager"

// check fails the test unless the CCM's objects in the cluster are exactly
// want's (same kinds and names; nothing left over, nothing missing) and
// each carries what want says: RBAC rules, bindings, and the workload's
// pod template.
func check(ctx context.Context, t *testing.T, api *harness.APIServer, phase string, want []runtime.Object) {
	t.Helper()
	got := clusterObjects(ctx, t, api)
	if diff := cmp.Diff(keys(want), keys(got)); diff != "" {
		t.Fatalf("after %s, the CCM's objects (-want +got):\n%s", phase, diff)
	}
	byKey := map[string]runtime.Object{}
	for _, o := range got {
		byKey[key(o)] = o
	}
	opts := cmp.Options{cmpopts.EquateEmpty()}
	for _, w := range want {
		g := byKey[key(w)]
		var diff string
		switch w := w.(type) {
		case *rbacv1.ClusterRole:
			diff = cmp.Diff(w.Rules, g.(*rbacv1.ClusterRole).Rules, opts)
		case *rbacv1.Role:
			diff = cmp.Diff(w.Rules, g.(*rbacv1.Role).Rules, opts)
		case *rbacv1.ClusterRoleBinding:
			g := g.(*rbacv1.ClusterRoleBinding)
			diff = cmp.Diff([]any{w.RoleRef, w.Subjects}, []any{g.RoleRef, g.Subjects}, opts)
		case *rbacv1.RoleBinding:
			g := g.(*rbacv1.RoleBinding)
			diff = cmp.Diff([]any{w.RoleRef, w.Subjects}, []any{g.RoleRef, g.Subjects}, opts)
		case *appsv1.Deployment:
			g := g.(*appsv1.Deployment)
			diff = cmp.Diff(podTemplate(w.Spec.Template), podTemplate(g.Spec.Template), opts)
			if g.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType && w.Spec.Strategy.Type == "" {
				diff += "strategy " + string(g.Spec.Strategy.Type) + ", want the default RollingUpdate\n"
			}
			if *w.Spec.Replicas != *g.Spec.Replicas {
				diff += "replicas differ\n"
			}
		case *appsv1.DaemonSet:
			diff = cmp.Diff(podTemplate(w.Spec.Template), podTemplate(g.(*appsv1.DaemonSet).Spec.Template), opts)
		}
		if diff != "" {
			t.Errorf("after %s, %s (-want +got):\n%s", phase, key(w), diff)
		}
	}
}

// template is what of a pod template an upgrade must carry over; fields the
// apiserver defaults are left out.
type template struct {
	Labels, Annotations  map[string]string
	ServiceAccount       string
	HostNetwork          bool
	Tolerations          []corev1.Toleration
	Image                string
	Args                 []string
	Env                  []corev1.EnvVar
	Liveness, Readiness  bool
	SecurityContext      *corev1.SecurityContext
	PodSecurityContext   *corev1.PodSecurityContext
	PriorityClass, DNS   string
	Resources            corev1.ResourceRequirements
	NodeSelector         map[string]string
	Affinity             *corev1.Affinity
	Volumes, VolumeMount []string
}

func podTemplate(p corev1.PodTemplateSpec) template {
	c := p.Spec.Containers[0]
	tpl := template{Labels: p.Labels, Annotations: p.Annotations, ServiceAccount: p.Spec.ServiceAccountName,
		HostNetwork: p.Spec.HostNetwork, Tolerations: p.Spec.Tolerations, Image: c.Image, Args: c.Args, Env: c.Env,
		Liveness: c.LivenessProbe != nil, Readiness: c.ReadinessProbe != nil, SecurityContext: c.SecurityContext,
		PodSecurityContext: p.Spec.SecurityContext, PriorityClass: p.Spec.PriorityClassName, DNS: string(p.Spec.DNSPolicy),
		Resources: c.Resources, NodeSelector: p.Spec.NodeSelector, Affinity: p.Spec.Affinity}
	if tpl.PodSecurityContext != nil && cmp.Equal(*tpl.PodSecurityContext, corev1.PodSecurityContext{}) {
		tpl.PodSecurityContext = nil // the apiserver sets an empty one
	}
	for _, v := range p.Spec.Volumes {
		tpl.Volumes = append(tpl.Volumes, v.Name)
	}
	for _, m := range c.VolumeMounts {
		tpl.VolumeMount = append(tpl.VolumeMount, m.Name+":"+m.MountPath)
	}
	return tpl
}

// clusterObjects are the CCM's objects in the cluster: its workloads,
// ServiceAccount, ClusterRoles and Roles named after it, and every binding
// named after it or of its ServiceAccount.
func clusterObjects(ctx context.Context, t *testing.T, api *harness.APIServer) []runtime.Object {
	t.Helper()
	var out []runtime.Object
	named := func(name string) bool {
		return strings.HasPrefix(name, ccmName) || strings.HasPrefix(name, "system:"+ccmName)
	}
	ofCCM := func(subjects []rbacv1.Subject) bool {
		return slices.ContainsFunc(subjects, func(s rbacv1.Subject) bool { return s.Kind == "ServiceAccount" && s.Name == ccmName })
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	lo, ns := metav1.ListOptions{}, "kube-system"
	k := api.Kube
	deps, err := k.AppsV1().Deployments(ns).List(ctx, lo)
	must(err)
	dss, err := k.AppsV1().DaemonSets(ns).List(ctx, lo)
	must(err)
	sas, err := k.CoreV1().ServiceAccounts(ns).List(ctx, lo)
	must(err)
	crs, err := k.RbacV1().ClusterRoles().List(ctx, lo)
	must(err)
	crbs, err := k.RbacV1().ClusterRoleBindings().List(ctx, lo)
	must(err)
	roles, err := k.RbacV1().Roles(ns).List(ctx, lo)
	must(err)
	rbs, err := k.RbacV1().RoleBindings(ns).List(ctx, lo)
	must(err)
	out = keep(out, deps.Items, func(*appsv1.Deployment) bool { return true })
	out = keep(out, dss.Items, func(*appsv1.DaemonSet) bool { return true })
	out = keep(out, sas.Items, func(o *corev1.ServiceAccount) bool { return named(o.Name) })
	out = keep(out, crs.Items, func(o *rbacv1.ClusterRole) bool { return named(o.Name) })
	out = keep(out, crbs.Items, func(o *rbacv1.ClusterRoleBinding) bool { return named(o.Name) || ofCCM(o.Subjects) })
	out = keep(out, roles.Items, func(o *rbacv1.Role) bool { return named(o.Name) })
	out = keep(out, rbs.Items, func(o *rbacv1.RoleBinding) bool { return named(o.Name) || ofCCM(o.Subjects) })
	return out
}

// keep appends to out the items of a listing that the CCM's are.
func keep[T any, P interface {
	*T
	runtime.Object
}](out []runtime.Object, items []T, ccms func(P) bool) []runtime.Object {
	for i := range items {
		if o := P(&items[i]); ccms(o) {
			out = append(out, o)
		}
	}
	return out
}

func keys(objs []runtime.Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, key(o))
	}
	slices.Sort(out)
	return out
}

// key is an object's type and name; the kube-system namespace is implied.
func key(o runtime.Object) string {
	m, err := meta.Accessor(o)
	if err != nil {
		return fmt.Sprintf("%T", o)
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", o), "*v1.") + "/" + m.GetName()
}
