package deploy

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestDefaults: the default render, as helm install makes it.
func TestDefaults(t *testing.T) {
	objs := mustRender(t)
	d := one[*appsv1.Deployment](t, objs)
	if d.Name != officialName {
		t.Errorf("Deployment %q, want the official %q", d.Name, officialName)
	}
	// The official chart's selector, so helm upgrade from it keeps the Deployment.
	if diff := cmp.Diff(map[string]string{"app.kubernetes.io/name": officialName, "app.kubernetes.io/instance": release}, d.Spec.Selector.MatchLabels); diff != "" {
		t.Errorf("selector (-official +ours):\n%s", diff)
	}
	if got := *d.Spec.Replicas; got != 2 {
		t.Errorf("replicas %d, want 2", got)
	}
	pod := d.Spec.Template.Spec
	c := pod.Containers[0]
	if c.Image != "ghcr.io/hcloudlab/hcloud-ccm:v0.1.0" {
		t.Errorf("image %q, want ghcr.io/hcloudlab/hcloud-ccm at the chart's appVersion", c.Image)
	}
	if pod.PriorityClassName != "system-cluster-critical" || pod.DNSPolicy != corev1.DNSDefault || pod.HostNetwork {
		t.Errorf("priorityClassName %q, dnsPolicy %q, hostNetwork %v", pod.PriorityClassName, pod.DNSPolicy, pod.HostNetwork)
	}
	for _, key := range []string{"node.cloudprovider.kubernetes.io/uninitialized", "CriticalAddonsOnly", "node-role.kubernetes.io/control-plane"} {
		if !slices.ContainsFunc(pod.Tolerations, func(tol corev1.Toleration) bool { return tol.Key == key }) {
			t.Errorf("no toleration of %s", key)
		}
	}
	if pod.Affinity == nil || pod.Affinity.NodeAffinity == nil || pod.Affinity.PodAntiAffinity == nil {
		t.Fatalf("affinity %+v, want control plane preferred and replicas apart", pod.Affinity)
	}
	term := pod.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm
	if got := term.LabelSelector.MatchLabels["app.kubernetes.io/name"]; got != officialName || d.Spec.Template.Labels["app.kubernetes.io/name"] != got {
		t.Errorf("anti-affinity selects app.kubernetes.io/name=%q, pods have %q", got, d.Spec.Template.Labels["app.kubernetes.io/name"])
	}
	token := env(c, "HCLOUD_TOKEN")
	if token == nil || token.ValueFrom == nil || token.ValueFrom.SecretKeyRef == nil ||
		token.ValueFrom.SecretKeyRef.Name != "hcloud" || token.ValueFrom.SecretKeyRef.Key != "token" {
		t.Errorf("HCLOUD_TOKEN %+v, want the Secret hcloud's key token", token)
	}
	if e := env(c, "HCLOUD_NETWORK"); e != nil {
		t.Errorf("HCLOUD_NETWORK %+v without networking", e)
	}
	// The Lease keeps its default name, so replicas of an official release
	// and of this one elect one leader between them.
	if slices.ContainsFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, "--leader-elect-resource-name=") }) {
		t.Errorf("args %q rename the Lease %s", c.Args, officialLease)
	}
}

// TestSecurityDefaults: the hardening the official chart lacks in part,
// and the probes on the metrics port.
func TestSecurityDefaults(t *testing.T) {
	pod := one[*appsv1.Deployment](t, mustRender(t)).Spec.Template.Spec
	psc := pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot ||
		psc.RunAsUser == nil || *psc.RunAsUser != 65532 || psc.RunAsGroup == nil || *psc.RunAsGroup != 65532 ||
		psc.FSGroup == nil || *psc.FSGroup != 65532 ||
		psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod securityContext %+v", psc)
	}
	c := pod.Containers[0]
	sc := c.SecurityContext
	if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("container securityContext %+v", sc)
	}
	if diff := cmp.Diff([]corev1.ContainerPort{{Name: "metrics", ContainerPort: 8233}}, c.Ports); diff != "" {
		t.Errorf("ports (-want +got):\n%s", diff)
	}
	for name, p := range map[string]struct {
		probe *corev1.Probe
		path  string
	}{"liveness": {c.LivenessProbe, "/healthz"}, "readiness": {c.ReadinessProbe, "/readyz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil || p.probe.HTTPGet.Path != p.path || p.probe.HTTPGet.Port.String() != "metrics" {
			t.Errorf("%s probe %+v, want GET %s on port metrics", name, p.probe, p.path)
		}
	}
}

// TestRBAC: least privilege by default, a binding an official release can
// be upgraded from, and nothing with rbac.create=false.
func TestRBAC(t *testing.T) {
	objs := mustRender(t)
	role := one[*rbacv1.ClusterRole](t, objs)
	if role.Name != officialClusterRole {
		t.Errorf("ClusterRole %q, want the official %q", role.Name, officialClusterRole)
	}
	rule := func(group, resource string, verbs ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: verbs}
	}
	want := []rbacv1.PolicyRule{
		rule("", "nodes", "get", "list", "watch", "update", "patch", "delete"),
		rule("", "nodes/status", "patch"),
		rule("", "services", "list", "watch"),
		rule("", "services/status", "patch"),
		rule("", "events", "create", "patch"),
		rule("coordination.k8s.io", "leases", "get", "create", "update"),
	}
	if diff := cmp.Diff(want, role.Rules); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	b := one[*rbacv1.ClusterRoleBinding](t, objs)
	// The official binding's name since v1.28, with the same roleRef: an
	// upgrade changes it in place and leaves no binding to the official
	// rules. The name up to v1.27 bound cluster-admin (roleRef is immutable).
	if b.Name != officialBinding {
		t.Errorf("ClusterRoleBinding %q, want the official %q", b.Name, officialBinding)
	}
	if b.RoleRef.Kind != "ClusterRole" || b.RoleRef.Name != role.Name {
		t.Errorf("roleRef %+v, want ClusterRole %s", b.RoleRef, role.Name)
	}
	sa := one[*corev1.ServiceAccount](t, objs)
	if diff := cmp.Diff([]rbacv1.Subject{{Kind: "ServiceAccount", Name: sa.Name, Namespace: "kube-system"}}, b.Subjects); diff != "" {
		t.Errorf("subjects (-want +got):\n%s", diff)
	}

	objs = mustRender(t, "--set", "rbac.create=false")
	if n := len(all[*rbacv1.ClusterRole](objs)) + len(all[*rbacv1.ClusterRoleBinding](objs)) + len(all[*rbacv1.Role](objs)) + len(all[*rbacv1.RoleBinding](objs)); n != 0 {
		t.Errorf("rbac.create=false renders %d RBAC objects", n)
	}
	one[*corev1.ServiceAccount](t, objs)
}

// TestLeaderElection: on for a DaemonSet or more than one replica, as the
// official chart; a flag in args wins.
func TestLeaderElection(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"one replica", []string{"--set", "replicaCount=1"}, "false"},
		{"two replicas", []string{"--set", "replicaCount=2"}, "true"},
		{"no replica", []string{"--set", "replicaCount=0"}, "false"},
		{"default", nil, "true"},
		{"DaemonSet", []string{"--set", "kind=DaemonSet", "--set", "replicaCount=1"}, "true"},
		{"args win", []string{"--set", "replicaCount=1", "--set", "args.leader-elect=true"}, "true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, a := range container(t, mustRender(t, tc.flags...)).Args {
				if v, ok := strings.CutPrefix(a, "--leader-elect="); ok {
					got = append(got, v)
				}
			}
			if !slices.Equal(got, []string{tc.want}) {
				t.Errorf("--leader-elect %v, want once %s", got, tc.want)
			}
		})
	}
}

// TestArgs: args render as the official chart renders them, and more
// carefully where it does not (false and 0 are values, not bare flags).
func TestArgs(t *testing.T) {
	objs := mustRender(t, "--set", "args.bare=", "--set", "args.secure-port=null", "--set", "args.off=false",
		"--set", "args.number=0", "--set", "networking.enabled=true", "--set", "args.cluster-cidr=10.0.0.0/8")
	args := container(t, objs).Args
	for _, want := range []string{"--bare", "--off=false", "--number=0", "--cluster-cidr=10.0.0.0/8", "--allocate-node-cidrs=true"} {
		if !slices.Contains(args, want) {
			t.Errorf("no %s in %q", want, args)
		}
	}
	for _, prefix := range []string{"--secure-port", "--cluster-cidr=10.244"} {
		if slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, prefix) }) {
			t.Errorf("%s in %q", prefix, args)
		}
	}
}

// TestEnv: env as the official chart takes it; a variable the chart manages
// can be set there instead, once; a plain value is a string.
func TestEnv(t *testing.T) {
	c := container(t, mustRender(t, "--set", "networking.enabled=true", "--set", "env.HCLOUD_NETWORK.value=my-network",
		"--set", "env.HCLOUD_TOKEN=null", "--set", "env.HCLOUD_TOKEN_FILE.value=/etc/hetzner/token", "--set", "env.HCLOUD_BUDGET_RESERVE.value=100"))
	var names []string
	for _, e := range c.Env {
		names = append(names, e.Name)
	}
	if diff := cmp.Diff([]string{"HCLOUD_BUDGET_RESERVE", "HCLOUD_NETWORK", "HCLOUD_TOKEN_FILE", "ROBOT_PASSWORD", "ROBOT_USER", "POD_NAME", "POD_NAMESPACE"}, names); diff != "" {
		t.Errorf("env names (-want +got):\n%s", diff)
	}
	// The rollout guard's pod, from the downward API.
	for name, path := range map[string]string{"POD_NAME": "metadata.name", "POD_NAMESPACE": "metadata.namespace"} {
		if e := env(c, name); e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != path {
			t.Errorf("%s %+v, want the field %s", name, e, path)
		}
	}
	if e := env(c, "HCLOUD_NETWORK"); e.Value != "my-network" || e.ValueFrom != nil {
		t.Errorf("HCLOUD_NETWORK %+v, want the value from env", e)
	}
	if e := env(c, "HCLOUD_BUDGET_RESERVE"); e.Value != "100" {
		t.Errorf("HCLOUD_BUDGET_RESERVE %+v", e)
	}
}

// TestOfficialValues: an operator's values file for the official chart
// renders, with the meaning it has there.
func TestOfficialValues(t *testing.T) {
	objs := mustRender(t, "-f", "testdata/official-values.yaml", "--api-versions", "monitoring.coreos.com/v1/PodMonitor")
	d := one[*appsv1.Deployment](t, objs)
	pod := d.Spec.Template.Spec
	c := pod.Containers[0]
	for _, want := range []string{"--feature-gates=CloudControllerManagerWatchBasedRoutesReconciliation=true", "--node-monitor-period=10s",
		"--allocate-node-cidrs=true", "--cluster-cidr=10.42.0.0/16", "--leader-elect=false"} {
		if !slices.Contains(c.Args, want) {
			t.Errorf("no %s in %q", want, c.Args)
		}
	}
	robot := env(c, "ROBOT_USER")
	if robot == nil || robot.ValueFrom == nil || robot.ValueFrom.SecretKeyRef == nil ||
		robot.ValueFrom.SecretKeyRef.Key != "robot-user" || robot.ValueFrom.SecretKeyRef.Optional == nil || !*robot.ValueFrom.SecretKeyRef.Optional {
		t.Errorf("ROBOT_USER %+v, want the optional key robot-user", robot)
	}
	if e := env(c, "HCLOUD_LOAD_BALANCERS_LOCATION"); e == nil || e.Value != "fsn1" {
		t.Errorf("HCLOUD_LOAD_BALANCERS_LOCATION %+v", e)
	}
	if e := env(c, "HCLOUD_NETWORK"); e == nil || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef.Key != "network" {
		t.Errorf("HCLOUD_NETWORK %+v", e)
	}
	if !pod.HostNetwork {
		t.Error("no hostNetwork with networking.enabled")
	}
	if *d.Spec.Replicas != 1 || d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType {
		t.Errorf("replicas %d strategy %+v", *d.Spec.Replicas, d.Spec.Strategy)
	}
	// The official values name the official image "of this chart": it is
	// this project's image.
	if c.Image != "ghcr.io/hcloudlab/hcloud-ccm:v0.1.0" {
		t.Errorf("image %s from the official values, want ghcr.io/hcloudlab/hcloud-ccm:v0.1.0", c.Image)
	}
	if diff := cmp.Diff([]corev1.LocalObjectReference{{Name: "registry-credentials"}}, pod.ImagePullSecrets); diff != "" {
		t.Errorf("imagePullSecrets (-want +got):\n%s", diff)
	}
	if pod.NodeSelector["node-role.kubernetes.io/control-plane"] != "" || len(pod.NodeSelector) != 1 {
		t.Errorf("nodeSelector %v", pod.NodeSelector)
	}
	if !slices.ContainsFunc(pod.Tolerations, func(tol corev1.Toleration) bool { return tol.Key == "dedicated" && tol.Value == "infra" }) {
		t.Errorf("additionalTolerations missing from %+v", pod.Tolerations)
	}
	if len(pod.Volumes) != 1 || len(c.VolumeMounts) != 1 || c.VolumeMounts[0].Name != pod.Volumes[0].Name {
		t.Errorf("volumes %+v mounts %+v", pod.Volumes, c.VolumeMounts)
	}
	if d.Spec.Template.Labels["team"] != "platform" || d.Spec.Template.Annotations["example.com/scrape"] != "true" {
		t.Errorf("pod labels %v annotations %v", d.Spec.Template.Labels, d.Spec.Template.Annotations)
	}
	if pod.DNSConfig == nil || !slices.Equal(pod.DNSConfig.Nameservers, []string{"185.12.64.1"}) {
		t.Errorf("dnsConfig %+v", pod.DNSConfig)
	}
	if sa := one[*corev1.ServiceAccount](t, objs); sa.Annotations["example.com/owner"] != "platform" {
		t.Errorf("ServiceAccount annotations %v", sa.Annotations)
	}
	pm := one[*unstructured.Unstructured](t, objs)
	if pm.GetKind() != "PodMonitor" || pm.GetLabels()["release"] != "kube-prometheus-stack" {
		t.Errorf("PodMonitor %s labels %v", pm.GetKind(), pm.GetLabels())
	}
}

// TestDaemonSet: kind=DaemonSet renders a DaemonSet, no Deployment, and
// (as the official chart) no affinity.
func TestDaemonSet(t *testing.T) {
	objs := mustRender(t, "--set", "kind=DaemonSet")
	if n := len(all[*appsv1.Deployment](objs)); n != 0 {
		t.Errorf("%d Deployments with kind=DaemonSet", n)
	}
	ds := one[*appsv1.DaemonSet](t, objs)
	if ds.Name != officialName {
		t.Errorf("DaemonSet %q, want %q", ds.Name, officialName)
	}
	if ds.Spec.Template.Spec.Affinity != nil {
		t.Errorf("affinity %+v on a DaemonSet", ds.Spec.Template.Spec.Affinity)
	}
	if c := ds.Spec.Template.Spec.Containers[0]; c.LivenessProbe == nil || c.SecurityContext == nil {
		t.Error("the DaemonSet's container lacks the probes or the security context")
	}
}

// TestPodMonitor: with monitoring and its PodMonitor on, a PodMonitor on
// the metrics port that selects the pods, when the CRD exists; without
// monitoring, none, metrics off, probes kept.
func TestPodMonitor(t *testing.T) {
	crd := []string{"--api-versions", "monitoring.coreos.com/v1/PodMonitor"}
	objs := mustRender(t, append(crd, "--set", "monitoring.enabled=true", "--set", "monitoring.podMonitor.enabled=true")...)
	pm := one[*unstructured.Unstructured](t, objs)
	if pm.GetAPIVersion() != "monitoring.coreos.com/v1" || pm.GetKind() != "PodMonitor" || pm.GetName() != officialName {
		t.Fatalf("%s %s %s, want a monitoring.coreos.com/v1 PodMonitor %s", pm.GetAPIVersion(), pm.GetKind(), pm.GetName(), officialName)
	}
	endpoints, _, _ := unstructured.NestedSlice(pm.Object, "spec", "podMetricsEndpoints")
	if len(endpoints) != 1 || endpoints[0].(map[string]any)["port"] != "metrics" {
		t.Errorf("podMetricsEndpoints %v, want the port metrics", endpoints)
	}
	selector, _, _ := unstructured.NestedStringMap(pm.Object, "spec", "selector", "matchLabels")
	if diff := cmp.Diff(one[*appsv1.Deployment](t, objs).Spec.Selector.MatchLabels, selector); diff != "" {
		t.Errorf("PodMonitor selector (-Deployment +PodMonitor):\n%s", diff)
	}

	for name, flags := range map[string][]string{
		"no CRD":         {"--set", "monitoring.podMonitor.enabled=true"},
		"podMonitor off": crd,
		"monitoring off": append(crd, "--set", "monitoring.enabled=false", "--set", "monitoring.podMonitor.enabled=true"),
	} {
		if n := len(all[*unstructured.Unstructured](mustRender(t, flags...))); n != 0 {
			t.Errorf("%s: %d PodMonitors", name, n)
		}
	}
	c := container(t, mustRender(t, "--set", "monitoring.enabled=false"))
	if e := env(c, "HCLOUD_METRICS_ENABLED"); e == nil || e.Value != "false" {
		t.Errorf("HCLOUD_METRICS_ENABLED %+v with monitoring.enabled=false", e)
	}
	if len(c.Ports) != 1 || c.LivenessProbe == nil || c.ReadinessProbe == nil {
		t.Errorf("ports %+v or probes gone with monitoring.enabled=false", c.Ports)
	}
	c = container(t, mustRender(t, "--set", "env.HCLOUD_METRICS_ADDRESS.value=:9100"))
	if c.Ports[0].ContainerPort != 9100 {
		t.Errorf("containerPort %d with HCLOUD_METRICS_ADDRESS=:9100", c.Ports[0].ContainerPort)
	}
}

// TestRefused: values the chart cannot honour fail the render with a
// message that says what to do.
func TestRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"kind", []string{"--set", "kind=StatefulSet"}, "Deployment"},
		{"cluster CIDR", []string{"--set", "networking.enabled=true", "--set", "networking.clusterCIDR="}, "networking.clusterCIDR"},
		{"metrics address", []string{"--set", "env.HCLOUD_METRICS_ADDRESS.value=metrics"}, "HCLOUD_METRICS_ADDRESS"},
		{"official image", []string{"--set", "image.repository=docker.io/hetznercloud/hcloud-cloud-controller-manager", "--set", "image.tag=v1.35.0"},
			"names the official CCM's image, which this chart does not run; set image.repository=ghcr.io/hcloudlab/hcloud-ccm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := render(t, tc.flags...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("render error %v, want one that says %q", err, tc.want)
			}
		})
	}
}

// TestNameOverride: every name follows nameOverride, and the default
// anti-affinity still selects the pods.
func TestNameOverride(t *testing.T) {
	objs := mustRender(t, "--set", "nameOverride=ccm")
	d := one[*appsv1.Deployment](t, objs)
	b := one[*rbacv1.ClusterRoleBinding](t, objs)
	if d.Name != "ccm" || one[*corev1.ServiceAccount](t, objs).Name != "ccm" || one[*rbacv1.ClusterRole](t, objs).Name != "system:ccm" ||
		b.Subjects[0].Name != "ccm" || d.Spec.Template.Spec.ServiceAccountName != "ccm" {
		t.Errorf("names do not follow nameOverride=ccm")
	}
	term := d.Spec.Template.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm
	if term.LabelSelector.MatchLabels["app.kubernetes.io/name"] != "ccm" || d.Spec.Template.Labels["app.kubernetes.io/name"] != "ccm" {
		t.Errorf("anti-affinity %v, pod labels %v", term.LabelSelector.MatchLabels, d.Spec.Template.Labels)
	}
}

// TestRobot: robot.enabled sets ROBOT_ENABLED, and the login comes from the
// Secret's optional keys, as in the official chart.
func TestRobot(t *testing.T) {
	c := container(t, mustRender(t, "--set", "robot.enabled=true"))
	if e := env(c, "ROBOT_ENABLED"); e == nil || e.Value != "true" {
		t.Errorf("ROBOT_ENABLED %+v", e)
	}
	for name, key := range map[string]string{"ROBOT_USER": "robot-user", "ROBOT_PASSWORD": "robot-password"} {
		e := env(c, name)
		if e == nil || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != "hcloud" ||
			e.ValueFrom.SecretKeyRef.Key != key || e.ValueFrom.SecretKeyRef.Optional == nil || !*e.ValueFrom.SecretKeyRef.Optional {
			t.Errorf("%s %+v, want the optional key %s of the Secret hcloud", name, e, key)
		}
	}
	if e := env(container(t, mustRender(t)), "ROBOT_ENABLED"); e != nil {
		t.Errorf("ROBOT_ENABLED %+v by default", e)
	}
}

// TestCertificateSecretRBAC: the CCM reads Secrets only in the namespaces
// rbac.certificateSecretNamespaces lists, through a Role and RoleBinding in
// each; by default in none.
func TestCertificateSecretRBAC(t *testing.T) {
	named := func(objs []runtime.Object) []string {
		var out []string
		for _, r := range all[*rbacv1.Role](objs) {
			for _, rule := range r.Rules {
				if slices.Contains(rule.Resources, "secrets") {
					out = append(out, r.Namespace)
				}
			}
		}
		return out
	}
	if got := named(mustRender(t)); len(got) != 0 {
		t.Errorf("Secrets readable by default in %v", got)
	}
	objs := mustRender(t, "--set", "rbac.certificateSecretNamespaces={shop,blog}")
	if got := named(objs); !slices.Equal(got, []string{"shop", "blog"}) {
		t.Errorf("Secrets readable in %v, want shop and blog", got)
	}
	for _, r := range all[*rbacv1.Role](objs) {
		if r.Namespace != "shop" {
			continue
		}
		want := []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list", "watch"}}}
		if diff := cmp.Diff(want, r.Rules); diff != "" {
			t.Errorf("rules (-want +got):\n%s", diff)
		}
	}
	bound := 0
	for _, b := range all[*rbacv1.RoleBinding](objs) {
		if strings.HasSuffix(b.Name, ":certificate-secrets") && b.Subjects[0].Name == "hcloud-cloud-controller-manager" && b.Subjects[0].Namespace == "kube-system" {
			bound++
		}
	}
	if bound != 2 {
		t.Errorf("%d bindings of the ServiceAccount to the Secrets roles, want 2", bound)
	}
	if _, err := render(t, "--set", "rbac.certificateSecretNamespaces={Not_A_Namespace}"); err == nil {
		t.Error("a namespace that cannot be one was accepted")
	}
}
