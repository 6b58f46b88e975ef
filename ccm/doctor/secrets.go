package doctor

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
)

// checkSecretAccess asks the apiserver whether the CCM's ServiceAccount
// may read the TLS Secrets Services name (http-certificate-secrets, as
// checkService found them), one SubjectAccessReview per namespace and
// verb; the Secrets themselves are not read.
func (d *doctor) checkSecretAccess(ctx context.Context) {
	if d.ccmUser == "" {
		return
	}
	byNS := d.secretUsers
	for _, ns := range slices.Sorted(maps.Keys(byNS)) {
		subject := "namespace/" + ns
		var denied []string
		for _, verb := range []string{"get", "list", "watch"} {
			review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: d.ccmUser,
				ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: verb, Resource: "secrets"}}}
			got, err := d.opts.Kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
			if err != nil {
				d.found.warn("secret", subject, fmt.Sprintf("cannot ask whether the CCM may read Secrets here: %v", err),
					"give the kubeconfig's user create on subjectaccessreviews")
				return
			}
			if !got.Status.Allowed {
				denied = append(denied, verb)
			}
		}
		names := strings.Join(byNS[ns], ", ")
		if len(denied) > 0 {
			d.found.fail("secret", subject, fmt.Sprintf("Services %s name TLS Secrets here, but the CCM (%s) may not %s Secrets in %s: they get no certificate",
				names, d.ccmUser, strings.Join(denied, ", "), ns),
				fmt.Sprintf("helm upgrade --reuse-values --set 'rbac.certificateSecretNamespaces={%s}' (every namespace listed), or bind a Role with get, list and watch on secrets", ns))
			continue
		}
		d.found.ok("secret", subject, fmt.Sprintf("the CCM may read the TLS Secrets that Services %s name", names))
	}
}

// checkTLSSecrets reads each TLS Secret svc names (namespace/name) with
// the doctor's own credentials and checks it as the CCM does before it
// uploads one (loadbalancer.CheckTLSSecret). A Secret the doctor may not
// read is left to checkSecretAccess; its data is never shown.
func (d *doctor) checkTLSSecrets(ctx context.Context, svc *corev1.Service, subject string, keys []string) {
	for _, key := range keys {
		ns, name, _ := strings.Cut(key, "/")
		sec, err := d.opts.Kube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			d.found.fail("service", subject, fmt.Sprintf("TLS Secret %s does not exist: its https ports get no certificate, and the CCM changes nothing of the load balancer until it does", key),
				"create it (cert-manager's Certificate, or kubectl create secret tls "+name+" -n "+ns+")")
		case err != nil:
			d.found.warn("service", subject, fmt.Sprintf("cannot read TLS Secret %s to check it: %v", key, err),
				"give the kubeconfig's user get on secrets in "+ns)
		default:
			if err := loadbalancer.CheckTLSSecret(sec); err != nil {
				d.found.fail("service", subject, err.Error()+": the CCM uploads nothing from it and changes nothing of the load balancer",
					"renew or replace the Secret's certificate and key (kubectl describe service "+svc.Name+" -n "+ns+" shows InvalidCertificateSecret)")
			}
		}
	}
}
