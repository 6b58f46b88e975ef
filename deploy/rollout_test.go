package deploy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// TestRolloutGuard: the Deployment keeps the official default strategy,
// its pods take turns (package ccm/rollout) and may read what that needs;
// a DaemonSet has no guard (its pods share the Lease).
func TestRolloutGuard(t *testing.T) {
	objs := mustRender(t)
	d := one[*appsv1.Deployment](t, objs)
	if d.Spec.Strategy.Type != "" || d.Spec.Strategy.RollingUpdate != nil {
		t.Errorf("strategy %+v, want none (the default RollingUpdate, as the official chart)", d.Spec.Strategy)
	}
	if d.Spec.Template.Annotations["hcloud-ccm.hcloudlab.dev/waits-for-older-pods"] != "true" {
		t.Errorf("pod annotations %v", d.Spec.Template.Annotations)
	}
	role := one[*rbacv1.Role](t, objs)
	want := []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"apps"}, Resources: []string{"replicasets"}, Verbs: []string{"get", "list", "watch"}},
	}
	if diff := cmp.Diff(want, role.Rules); diff != "" || role.Namespace != "kube-system" {
		t.Errorf("Role %s/%s rules (-want +got):\n%s", role.Namespace, role.Name, diff)
	}
	rb := one[*rbacv1.RoleBinding](t, objs)
	if rb.RoleRef.Name != role.Name || len(rb.Subjects) != 1 || rb.Subjects[0].Name != officialName {
		t.Errorf("RoleBinding %+v", rb)
	}
	ds := mustRender(t, "--set", "kind=DaemonSet")
	c := one[*appsv1.DaemonSet](t, ds).Spec.Template
	if len(all[*rbacv1.Role](ds)) != 0 || env(c.Spec.Containers[0], "POD_NAME") != nil || len(c.Annotations) != 0 {
		t.Errorf("a DaemonSet has the rollout guard: %d Roles, annotations %v", len(all[*rbacv1.Role](ds)), c.Annotations)
	}
	if s := one[*appsv1.Deployment](t, mustRender(t, "--set", "strategy.type=Recreate")).Spec.Strategy; s.Type != appsv1.RecreateDeploymentStrategyType {
		t.Errorf("strategy.type=Recreate renders %+v", s)
	}
}
