package deploy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

// TestHelmScript: scripts/helm.sh prints the path of a working helm and
// nothing else on stdout.
func TestHelmScript(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), helm(t), "version", "--template", "{{.Version}}").Output()
	if err != nil || !strings.HasPrefix(string(out), "v3.") {
		t.Errorf("helm version %q, %v", out, err)
	}
}

var helmPath = sync.OnceValues(func() (string, error) {
	cmd := exec.Command("../scripts/helm.sh")
	cmd.Stderr = os.Stderr // the first build takes minutes; say so
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("scripts/helm.sh: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
})

// helm is the path of helm, built once by scripts/helm.sh.
func helm(t *testing.T) string {
	t.Helper()
	p, err := helmPath()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// render runs helm template for the release hccm in kube-system.
func render(t *testing.T, flags ...string) ([]byte, error) {
	t.Helper()
	args := append([]string{"template", release, "./chart", "--namespace", "kube-system"}, flags...)
	cmd := exec.CommandContext(t.Context(), helm(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("helm %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

// mustRender renders and decodes, and checks what holds for every render:
// the chart never makes the Secret with the token.
func mustRender(t *testing.T, flags ...string) []runtime.Object {
	t.Helper()
	out, err := render(t, flags...)
	if err != nil {
		t.Fatal(err)
	}
	objs := decode(t, out)
	noSecret(t, objs)
	return objs
}

func noSecret(t *testing.T, objs []runtime.Object) {
	t.Helper()
	for _, s := range all[*corev1.Secret](objs) {
		// The webhook's certificate Secret, rendered empty for the CCM to fill.
		if strings.HasSuffix(s.Name, "-webhook-tls") && len(s.Data) == 0 && len(s.StringData) == 0 {
			continue
		}
		t.Errorf("the chart renders a Secret %s: applying it would overwrite the operator's token", s.Name)
	}
}

// strict decodes into client-go's types and fails on unknown or duplicate
// fields, so a misspelt key in a template is an error here.
var strict = serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()

// decode reads a multi-document YAML stream: typed objects for client-go's
// kinds, unstructured ones for the rest (the PodMonitor).
func decode(t *testing.T, raw []byte) []runtime.Object {
	t.Helper()
	var objs []runtime.Object
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		obj, _, err := strict.Decode(doc, nil, nil)
		if runtime.IsNotRegisteredError(err) {
			u := &unstructured.Unstructured{}
			js, jerr := utilyaml.ToJSON(doc)
			if jerr == nil {
				jerr = u.UnmarshalJSON(js)
			}
			obj, err = u, jerr
		}
		if err != nil {
			t.Fatalf("%v in\n%s", err, doc)
		}
		objs = append(objs, obj)
	}
}

// stripComments drops whole-line comments, so a document of comments only
// counts as empty.
func stripComments(doc []byte) []byte {
	var out []byte
	for line := range bytes.Lines(doc) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(out, line...)
		}
	}
	return out
}

func all[T runtime.Object](objs []runtime.Object) []T {
	var out []T
	for _, o := range objs {
		if v, ok := o.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

func one[T runtime.Object](t *testing.T, objs []runtime.Object) T {
	t.Helper()
	got := all[T](objs)
	if len(got) != 1 {
		var zero T
		t.Fatalf("%d objects of type %T, want 1", len(got), zero)
	}
	return got[0]
}

// container is the CCM container of the render's one Deployment or DaemonSet.
func container(t *testing.T, objs []runtime.Object) corev1.Container {
	t.Helper()
	if ds := all[*appsv1.DaemonSet](objs); len(ds) == 1 {
		return ds[0].Spec.Template.Spec.Containers[0]
	}
	return one[*appsv1.Deployment](t, objs).Spec.Template.Spec.Containers[0]
}

func env(c corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}
