package doctor

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apiserver/pkg/authentication/serviceaccount"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Leader election as the CCM's flags default it.
const (
	defaultLeaseName      = "cloud-controller-manager"
	defaultLeaseNamespace = "kube-system"
	defaultLeaseDuration  = 15 * time.Second
)

// workload is the CCM's Deployment or DaemonSet.
type workload struct {
	kind, name     string
	pod            corev1.PodSpec
	desired, ready int32
}

// checkWorkload finds the CCM's Deployment or DaemonSet in the namespace
// and checks its replicas, Secret, ServiceAccount, ClusterRoleBinding and
// the leader Lease.
func (d *doctor) checkWorkload(ctx context.Context) {
	ns := d.opts.Namespace
	ws, err := d.workloads(ctx)
	if err != nil {
		d.found.warn("ccm", "namespace/"+ns, fmt.Sprintf("cannot list Deployments and DaemonSets: %v", err), "give the kubeconfig's user read access to apps in "+ns)
	}
	args := map[string]string{}
	if len(ws) > 0 && len(ws[0].pod.Containers) > 0 {
		args = flags(ccmContainer(ws[0].pod))
	}
	if err == nil && len(ws) == 0 {
		// A CCM outside the cluster still holds the Lease.
		if d.checkLease(ctx, args) {
			d.found.warn("ccm", "namespace/"+ns, "no Deployment or DaemonSet of the CCM in namespace "+ns+", but a replica leads: it runs elsewhere",
				"pass --namespace where it runs, for the checks of its Deployment and RBAC")
			return
		}
		d.found.fail("ccm", "namespace/"+ns, "no Deployment or DaemonSet of the CCM in namespace "+ns,
			"install it (deploy/ccm.yaml or the Helm chart), or pass --namespace where it runs")
		d.ccmIssue = "the CCM is not installed in " + ns // the cause of the Lease's finding
		return
	}
	for _, w := range ws {
		subject := w.kind + "/" + ns + "/" + w.name
		switch {
		case w.ready == 0:
			d.found.fail("ccm", subject, fmt.Sprintf("0 of %d replicas ready", w.desired), fmt.Sprintf("kubectl -n %s describe %s %s; kubectl -n %s logs %s/%s", ns, w.kind, w.name, ns, w.kind, w.name))
			d.setIssue("no replica of the CCM is ready")
		case w.ready < w.desired:
			d.found.warn("ccm", subject, fmt.Sprintf("%d of %d replicas ready", w.ready, w.desired), fmt.Sprintf("kubectl -n %s describe %s %s", ns, w.kind, w.name))
		default:
			d.found.ok("ccm", subject, fmt.Sprintf("%d of %d replicas ready", w.ready, w.desired))
		}
		d.checkSecrets(ctx, subject, w.pod)
		d.checkRBAC(ctx, w.pod)
	}
	d.checkLease(ctx, args)
}

// workloads are the Deployments and DaemonSets in the namespace that run
// the CCM: named like it, or started with --cloud-provider=hcloud.
func (d *doctor) workloads(ctx context.Context) ([]workload, error) {
	return ccmWorkloads(ctx, d.opts.Kube, d.opts.Namespace)
}

// ccmWorkloads are the CCM's Deployments, then DaemonSets, in ns.
func ccmWorkloads(ctx context.Context, kube kubernetes.Interface, ns string) ([]workload, error) {
	var out []workload
	deps, err := kube.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, dep := range deps.Items {
		if isCCM(dep.Name, dep.Spec.Template.Spec) {
			desired := int32(1)
			if dep.Spec.Replicas != nil {
				desired = *dep.Spec.Replicas
			}
			out = append(out, workload{kind: "deployment", name: dep.Name, pod: dep.Spec.Template.Spec, desired: desired, ready: dep.Status.ReadyReplicas})
		}
	}
	dss, err := kube.AppsV1().DaemonSets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, ds := range dss.Items {
		if isCCM(ds.Name, ds.Spec.Template.Spec) {
			out = append(out, workload{kind: "daemonset", name: ds.Name, pod: ds.Spec.Template.Spec, desired: ds.Status.DesiredNumberScheduled, ready: ds.Status.NumberReady})
		}
	}
	return out, nil
}

// ccmContainer is the pod's container started with
// --cloud-provider=hcloud, else its first: a sidecar may come first.
func ccmContainer(pod corev1.PodSpec) corev1.Container {
	for _, c := range pod.Containers {
		if slices.Contains(c.Args, "--cloud-provider=hcloud") || slices.Contains(c.Command, "--cloud-provider=hcloud") {
			return c
		}
	}
	return pod.Containers[0]
}

// title is the workload's kind as Kubernetes spells it.
func (w workload) title() string {
	if w.kind == "daemonset" {
		return "DaemonSet"
	}
	return "Deployment"
}

func isCCM(name string, pod corev1.PodSpec) bool {
	if strings.Contains(name, "cloud-controller-manager") {
		return true
	}
	for _, c := range pod.Containers {
		if slices.Contains(c.Args, "--cloud-provider=hcloud") || slices.Contains(c.Command, "--cloud-provider=hcloud") {
			return true
		}
	}
	return false
}

// flags are a container's --name=value arguments.
func flags(c corev1.Container) map[string]string {
	out := map[string]string{}
	for _, a := range append(slices.Clone(c.Command), c.Args...) {
		if name, value, ok := strings.Cut(strings.TrimPrefix(a, "--"), "="); ok && strings.HasPrefix(a, "--") {
			out[name] = value
		}
	}
	return out
}

// checkSecrets checks the Secrets the CCM's environment reads.
func (d *doctor) checkSecrets(ctx context.Context, subject string, pod corev1.PodSpec) {
	ns := d.opts.Namespace
	for _, c := range pod.Containers {
		for _, e := range c.Env {
			ref := e.ValueFrom
			if ref == nil || ref.SecretKeyRef == nil || (ref.SecretKeyRef.Optional != nil && *ref.SecretKeyRef.Optional) {
				continue
			}
			name, key := ref.SecretKeyRef.Name, ref.SecretKeyRef.Key
			s, err := d.opts.Kube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				d.found.fail("ccm", subject, fmt.Sprintf("%s reads Secret %s/%s, which does not exist: no pod starts", e.Name, ns, name),
					fmt.Sprintf("kubectl -n %s create secret generic %s --from-literal=%s=...", ns, name, key))
				d.setIssue("the CCM's Secret is missing")
			case err != nil:
				d.found.warn("ccm", subject, fmt.Sprintf("cannot read Secret %s/%s: %v", ns, name, err), "give the kubeconfig's user read access to Secrets in "+ns)
			case s.Data[key] == nil && s.StringData[key] == "":
				d.found.fail("ccm", subject, fmt.Sprintf("%s reads key %s of Secret %s/%s, which has no such key: no pod starts", e.Name, key, ns, name),
					fmt.Sprintf("add the key: kubectl -n %s patch secret %s --type merge -p '{\"stringData\":{\"%s\":\"...\"}}'", ns, name, key))
				d.setIssue("the CCM's Secret lacks a key")
			}
		}
	}
}

// checkRBAC checks the pod's ServiceAccount and that a
// ClusterRoleBinding grants it an existing ClusterRole.
func (d *doctor) checkRBAC(ctx context.Context, pod corev1.PodSpec) {
	ns := d.opts.Namespace
	sa := pod.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	subject := "serviceaccount/" + ns + "/" + sa
	d.ccmUser = serviceaccount.MakeUsername(ns, sa)
	if _, err := d.opts.Kube.CoreV1().ServiceAccounts(ns).Get(ctx, sa, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		d.found.fail("rbac", subject, "the CCM's ServiceAccount does not exist: no pod can be created", "apply deploy/ccm.yaml (or the Helm chart) again")
		d.setIssue("the CCM's ServiceAccount is missing")
		return
	} else if err != nil {
		d.found.warn("rbac", subject, fmt.Sprintf("cannot read it: %v", err), "give the kubeconfig's user read access to ServiceAccounts")
		return
	}
	crbs, err := d.opts.Kube.RbacV1().ClusterRoleBindings().List(ctx, metav1.ListOptions{})
	if err != nil {
		d.found.warn("rbac", subject, fmt.Sprintf("cannot list ClusterRoleBindings: %v", err), "give the kubeconfig's user read access to RBAC")
		return
	}
	var bound []string
	for _, b := range crbs.Items {
		if !slices.ContainsFunc(b.Subjects, func(s rbacv1.Subject) bool { return s.Kind == "ServiceAccount" && s.Name == sa && s.Namespace == ns }) {
			continue
		}
		if b.RoleRef.Kind == "ClusterRole" && b.RoleRef.Name == "cluster-admin" {
			// The official CCM's binding up to v1.27, left by kubectl apply.
			d.found.warn("rbac", "clusterrolebinding/"+b.Name, "makes the CCM a cluster admin; the CCM needs none of it",
				"kubectl delete clusterrolebinding "+b.Name)
		} else if b.RoleRef.Kind == "ClusterRole" {
			if _, err := d.opts.Kube.RbacV1().ClusterRoles().Get(ctx, b.RoleRef.Name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
				d.found.fail("rbac", "clusterrolebinding/"+b.Name, fmt.Sprintf("binds ClusterRole %s, which does not exist", b.RoleRef.Name), "apply deploy/ccm.yaml (or the Helm chart) again")
				d.setIssue("the CCM's ClusterRole is missing")
				continue
			}
		}
		bound = append(bound, fmt.Sprintf("%s %s (by %s)", b.RoleRef.Kind, b.RoleRef.Name, b.Name))
	}
	if len(bound) == 0 {
		d.found.fail("rbac", subject, "no ClusterRoleBinding grants the CCM's ServiceAccount a role: it cannot read Nodes or Services",
			"apply deploy/ccm.yaml (or the Helm chart) again: ClusterRoleBinding system:hcloud-cloud-controller-manager:restricted")
		d.setIssue("the CCM's ServiceAccount has no ClusterRoleBinding")
		return
	}
	d.found.ok("rbac", subject, "bound to "+strings.Join(bound, ", "))
}

// checkLease checks that a replica holds the leader Lease and renews it,
// and says whether one does.
func (d *doctor) checkLease(ctx context.Context, args map[string]string) bool {
	if on, err := strconv.ParseBool(args["leader-elect"]); err == nil && !on {
		d.found.ok("lease", "ccm", "leader election is off (--leader-elect=false)")
		return true
	}
	name, ns := args["leader-elect-resource-name"], args["leader-elect-resource-namespace"]
	if name == "" {
		name = defaultLeaseName
	}
	if ns == "" {
		ns = defaultLeaseNamespace
	}
	subject := "lease/" + ns + "/" + name
	l, err := d.opts.Kube.CoordinationV1().Leases(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		d.found.fail("lease", subject, "no leader Lease: no replica has ever led, so no controller runs", "read the CCM's logs (kubectl -n "+d.opts.Namespace+" logs)")
		d.setIssue("no replica of the CCM leads")
		return false
	}
	if err != nil {
		d.found.warn("lease", subject, fmt.Sprintf("cannot read it: %v", err), "give the kubeconfig's user read access to Leases in "+ns)
		return false
	}
	holder := ""
	if l.Spec.HolderIdentity != nil {
		holder = *l.Spec.HolderIdentity
	}
	duration := defaultLeaseDuration
	if l.Spec.LeaseDurationSeconds != nil {
		duration = time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
	}
	switch {
	case holder == "":
		d.found.fail("lease", subject, "no replica holds the leader Lease, so no controller runs", "read the CCM's logs")
		d.setIssue("no replica of the CCM leads")
	case l.Spec.RenewTime == nil || d.now.Sub(l.Spec.RenewTime.Time) > duration:
		age := "never"
		if l.Spec.RenewTime != nil {
			age = d.now.Sub(l.Spec.RenewTime.Time).Round(time.Second).String() + " ago"
		}
		d.found.fail("lease", subject, fmt.Sprintf("held by %s, renewed %s (the lease lasts %s): the leader is gone or stuck", holder, age, duration),
			"read the leader's logs; restart it if it hangs")
		d.setIssue("the CCM's leader stopped renewing its Lease")
	default:
		d.found.ok("lease", subject, fmt.Sprintf("held by %s, renewed %s ago", holder, d.now.Sub(l.Spec.RenewTime.Time).Round(time.Second)))
		return true
	}
	return false
}

// setIssue records why the CCM is not running, keeping the first reason.
func (d *doctor) setIssue(why string) {
	if d.ccmIssue == "" {
		d.ccmIssue = why
	}
}
