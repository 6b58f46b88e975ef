package harness

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"k8s.io/utils/ptr"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// manifests are the objects of deploy/ccm.yaml.
type manifests struct {
	objects []runtime.Object
}

func readManifests(path string) (*manifests, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	objs, err := DecodeManifests(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &manifests{objects: objs}, nil
}

// DecodeManifests decodes a multi-document YAML file of built-in kinds,
// skipping documents of nothing but comments.
func DecodeManifests(raw []byte) ([]runtime.Object, error) {
	var objs []runtime.Object
	r := utilyaml.NewYAMLReader(bufioReader(raw))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, err
		}
		if onlyComments(doc) {
			continue
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			return nil, err
		}
		objs = append(objs, obj)
	}
}

// serviceAccount is the ServiceAccount the Deployment runs as.
func (m *manifests) serviceAccount() (*corev1.ServiceAccount, error) {
	for _, o := range m.objects {
		if sa, ok := o.(*corev1.ServiceAccount); ok {
			return sa, nil
		}
	}
	return nil, errors.New("deploy/ccm.yaml has no ServiceAccount")
}

// applyRBAC creates the Secret "hcloud" with token and network, the
// ServiceAccount, roles and bindings; the Deployment is the harness's to play.
func (m *manifests) applyRBAC(ctx context.Context, kube kubernetes.Interface, token, network string) error {
	var objs []runtime.Object
	for _, o := range m.objects {
		if _, ok := o.(*appsv1.Deployment); !ok {
			objs = append(objs, o)
		}
	}
	return Apply(ctx, kube, objs, token, network)
}

// ReadManifests decodes the objects of a manifest file such as deploy/ccm.yaml.
func ReadManifests(path string) ([]runtime.Object, error) {
	m, err := readManifests(path)
	if err != nil {
		return nil, err
	}
	return m.objects, nil
}

// The Secret the operator creates before applying deploy/ccm.yaml (which
// does not carry it, so that applying the file never overwrites a token),
// with the keys token and network, as for the official CCM.
const (
	SecretName      = "hcloud"
	SecretNamespace = "kube-system"
)

// Apply creates the Secret "hcloud" in kube-system with token and network,
// as an operator does with kubectl, then the objects (a Secret "hcloud"
// among them is skipped); an object that exists is left as it is.
func Apply(ctx context.Context, kube kubernetes.Interface, objs []runtime.Object, token, network string) error {
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: SecretName, Namespace: SecretNamespace},
		StringData: map[string]string{"token": token, "network": network},
	}
	if _, err := kube.CoreV1().Secrets(SecretNamespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the Secret %s/%s: %w", SecretNamespace, SecretName, err)
	}
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *appsv1.Deployment:
			_, err = kube.AppsV1().Deployments(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *corev1.ServiceAccount:
			_, err = kube.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.ClusterRole:
			_, err = kube.RbacV1().ClusterRoles().Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.ClusterRoleBinding:
			_, err = kube.RbacV1().ClusterRoleBindings().Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.Role:
			_, err = kube.RbacV1().Roles(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.RoleBinding:
			_, err = kube.RbacV1().RoleBindings(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *corev1.Secret:
			if o.Name != SecretName {
				_, err = kube.CoreV1().Secrets(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
			}
		case *corev1.Service:
			_, err = kube.CoreV1().Services(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *admissionregistrationv1.ValidatingWebhookConfiguration:
			_, err = kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, o, metav1.CreateOptions{})
		}
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("applying deploy/ccm.yaml: %w", err)
		}
	}
	return nil
}

// serviceAccountKubeconfig writes a kubeconfig with a token of sa: the
// identity the CCM has in a cluster, and no more.
func serviceAccountKubeconfig(ctx context.Context, kube kubernetes.Interface, sa *corev1.ServiceAccount, server, caFile, path string) error {
	tr, err := kube.CoreV1().ServiceAccounts(sa.Namespace).CreateToken(ctx, sa.Name,
		&authv1.TokenRequest{Spec: authv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(24 * 3600))}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("token for %s/%s: %w", sa.Namespace, sa.Name, err)
	}
	return writeKubeconfig(path, server, caFile, &clientcmdapi.AuthInfo{Token: tr.Status.Token})
}

func writeKubeconfig(path, server, caFile string, auth *clientcmdapi.AuthInfo) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["e2e"] = &clientcmdapi.Cluster{Server: server, CertificateAuthority: caFile}
	cfg.AuthInfos["user"] = auth
	cfg.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: "user"}
	cfg.CurrentContext = "e2e"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return clientcmd.WriteToFile(*cfg, path)
}

// onlyComments reports whether a YAML document holds nothing but comments
// and blank lines, such as the header of a rendered manifest.
func onlyComments(doc []byte) bool {
	for line := range bytes.Lines(doc) {
		if l := bytes.TrimSpace(line); len(l) > 0 && l[0] != '#' {
			return false
		}
	}
	return true
}

func bufioReader(b []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(b)) }

func adminAuth(p *pki) *clientcmdapi.AuthInfo {
	return &clientcmdapi.AuthInfo{ClientCertificate: p.adminCert, ClientKey: p.adminKey}
}
