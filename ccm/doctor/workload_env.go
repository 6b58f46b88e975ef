package doctor

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// WorkloadEnv returns getenv backed by the HCLOUD_* environment of the
// CCM's Deployment or DaemonSet in namespace, as its pods get it: plain
// values, and values from Secrets and ConfigMaps (env and envFrom). What
// getenv sets wins, so a setting can be tried before it is deployed. It
// also says where HCLOUD_TOKEN came from; found is false when there is no
// such workload, or it sets no HCLOUD_TOKEN doctor can read (its other
// settings are in getenv all the same).
func WorkloadEnv(ctx context.Context, kube kubernetes.Interface, namespace string, getenv func(string) string) (_ func(string) string, tokenSource string, found bool, _ error) {
	ws, err := ccmWorkloads(ctx, kube, namespace)
	if err != nil || len(ws) == 0 || len(ws[0].pod.Containers) == 0 {
		return getenv, "", false, err
	}
	w := ws[0]
	r := &envReader{ctx: ctx, kube: kube, namespace: namespace, secrets: map[string]*corev1.Secret{}, maps: map[string]*corev1.ConfigMap{}}
	vars, sources := map[string]string{}, map[string]string{}
	c := ccmContainer(w.pod)
	for _, from := range c.EnvFrom {
		for k, v := range r.envFrom(from) {
			if strings.HasPrefix(k, "HCLOUD_") || strings.HasPrefix(k, "ROBOT_") {
				vars[k], sources[k] = v, r.fromSource(from)
			}
		}
	}
	for _, e := range c.Env {
		if !strings.HasPrefix(e.Name, "HCLOUD_") && !strings.HasPrefix(e.Name, "ROBOT_") {
			continue
		}
		v, src, ok := r.value(e)
		if ok {
			vars[e.Name], sources[e.Name] = v, src
		}
	}
	merged := func(k string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return vars[k]
	}
	if strings.TrimSpace(vars["HCLOUD_TOKEN"]) == "" {
		return merged, "", false, nil
	}
	return merged, fmt.Sprintf("%s of %s %s/%s", sources["HCLOUD_TOKEN"], w.title(), namespace, w.name), true, nil
}

// envReader resolves a container's environment, reading each Secret and
// ConfigMap once.
type envReader struct {
	ctx       context.Context
	kube      kubernetes.Interface
	namespace string
	secrets   map[string]*corev1.Secret
	maps      map[string]*corev1.ConfigMap
}

// value is e's value and where it came from; false when doctor cannot
// read it (a field or resource reference, a missing key).
func (r *envReader) value(e corev1.EnvVar) (string, string, bool) {
	switch {
	case e.ValueFrom == nil:
		return e.Value, e.Name, true
	case e.ValueFrom.SecretKeyRef != nil:
		ref := e.ValueFrom.SecretKeyRef
		if s := r.secret(ref.Name); s != nil {
			v, ok := s.Data[ref.Key]
			return string(v), fmt.Sprintf("key %s of Secret %s/%s", ref.Key, r.namespace, ref.Name), ok
		}
	case e.ValueFrom.ConfigMapKeyRef != nil:
		ref := e.ValueFrom.ConfigMapKeyRef
		if m := r.configMap(ref.Name); m != nil {
			v, ok := m.Data[ref.Key]
			return v, fmt.Sprintf("key %s of ConfigMap %s/%s", ref.Key, r.namespace, ref.Name), ok
		}
	}
	return "", "", false
}

// envFrom is every variable an envFrom source gives, with its prefix.
func (r *envReader) envFrom(from corev1.EnvFromSource) map[string]string {
	out := map[string]string{}
	switch {
	case from.SecretRef != nil:
		if s := r.secret(from.SecretRef.Name); s != nil {
			for k, v := range s.Data {
				out[from.Prefix+k] = string(v)
			}
		}
	case from.ConfigMapRef != nil:
		if m := r.configMap(from.ConfigMapRef.Name); m != nil {
			for k, v := range m.Data {
				out[from.Prefix+k] = v
			}
		}
	}
	return out
}

func (r *envReader) fromSource(from corev1.EnvFromSource) string {
	if from.SecretRef != nil {
		return "Secret " + r.namespace + "/" + from.SecretRef.Name
	}
	return "ConfigMap " + r.namespace + "/" + from.ConfigMapRef.Name
}

func (r *envReader) secret(name string) *corev1.Secret {
	if s, ok := r.secrets[name]; ok {
		return s
	}
	s, err := r.kube.CoreV1().Secrets(r.namespace).Get(r.ctx, name, metav1.GetOptions{})
	if err != nil {
		s = nil
	}
	r.secrets[name] = s
	return s
}

func (r *envReader) configMap(name string) *corev1.ConfigMap {
	if m, ok := r.maps[name]; ok {
		return m
	}
	m, err := r.kube.CoreV1().ConfigMaps(r.namespace).Get(r.ctx, name, metav1.GetOptions{})
	if err != nil {
		m = nil
	}
	r.maps[name] = m
	return m
}
