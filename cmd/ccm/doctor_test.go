package main

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/hcloudlab/hcloud-ccm/ccm/doctor"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// doctorCluster is fakecloud with network k8s, and a cluster with no Nodes
// whose CCM runs outside it (its Lease is held) in namespace ns, with
// Secret hcloud there. It returns the endpoint and the kube constructor,
// which records the kubeconfig it was given.
func doctorCluster(t *testing.T, ns string, objs ...runtime.Object) (string, func(string, time.Duration) (kubernetes.Interface, error), *string) {
	t.Helper()
	fc := fakecloud.New(fakecloud.Options{})
	if err := fc.Seed(fakecloud.World{Networks: []fakecloud.SeedNetwork{{Name: "k8s", IPRange: "10.0.0.0/16",
		Subnets: []schema.NetworkSubnet{{Type: "cloud", IPRange: "10.0.0.0/24", NetworkZone: "eu-central"}}}}}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(fc)
	t.Cleanup(srv.Close)
	objs = append(objs,
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hcloud"},
			Data: map[string][]byte{"token": []byte(fakecloud.DefaultToken), "network": []byte("k8s")}},
		&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "cloud-controller-manager"},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("elsewhere"), LeaseDurationSeconds: ptr.To(int32(15)),
				RenewTime: ptr.To(metav1.NewMicroTime(time.Now()))}})
	var kubeconfig string
	return srv.URL + "/v1", func(path string, _ time.Duration) (kubernetes.Interface, error) {
		kubeconfig = path
		return fake.NewClientset(objs...), nil
	}, &kubeconfig
}

func TestDoctorText(t *testing.T) {
	endpoint, kube, kubeconfig := doctorCluster(t, "kube-system")
	var stdout, stderr bytes.Buffer
	env := map[string]string{"HCLOUD_ENDPOINT": endpoint}
	code := runDoctor(t.Context(), []string{"--kubeconfig", "/tmp/kc"}, doctorIO{getenv: func(k string) string { return env[k] },
		stdout: &stdout, stderr: &stderr, kube: kube})
	if code != doctorHealthy {
		t.Errorf("exit status %d, want %d; stderr %s", code, doctorHealthy, stderr.String())
	}
	if *kubeconfig != "/tmp/kc" {
		t.Errorf("kubeconfig %q, want /tmp/kc", *kubeconfig)
	}
	out := stdout.String()
	for _, want := range []string{"STATUS", "token (Secret kube-system/hcloud)", "network/k8s", "0 FAIL", "API requests"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestDoctorJSONFail: -o json, a namespace of one's own, a cluster CIDR
// outside the network, and an exit status of 1.
func TestDoctorJSONFail(t *testing.T) {
	endpoint, kube, _ := doctorCluster(t, "ccm")
	var stdout, stderr bytes.Buffer
	env := map[string]string{"HCLOUD_ENDPOINT": endpoint}
	code := runDoctor(t.Context(), []string{"-o", "json", "--namespace=ccm", "--cluster-cidr", "192.168.0.0/16"},
		doctorIO{getenv: func(k string) string { return env[k] }, stdout: &stdout, stderr: &stderr, kube: kube})
	if code != doctorFailed {
		t.Errorf("exit status %d, want %d; stderr %s", code, doctorFailed, stderr.String())
	}
	var r doctor.Report
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("%v in %s", err, stdout.String())
	}
	var failed []string
	for _, f := range r.Findings {
		if f.Status == doctor.Fail {
			failed = append(failed, f.Check+" "+f.Subject)
		}
	}
	if strings.Join(failed, ",") != "cluster-cidr 192.168.0.0/16" || r.Requests == 0 {
		t.Errorf("FAIL findings %q, %d requests, in:\n%s", failed, r.Requests, stdout.String())
	}
}

func TestDoctorUsage(t *testing.T) {
	_, kube, _ := doctorCluster(t, "kube-system")
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(fakecloud.DefaultToken), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		env    map[string]string
		stderr string
	}{
		{name: "unknown output", args: []string{"-o", "yaml"}, stderr: "want -o text or -o json"},
		{name: "unknown flag", args: []string{"--kubeconfg=x"}, stderr: "flag provided but not defined"},
		{name: "argument", args: []string{"nodes"}, stderr: "no arguments"},
		{name: "no Secret", args: []string{"--namespace", "elsewhere"}, stderr: "Secret elsewhere/hcloud cannot be read"},
		{name: "bad configuration", env: map[string]string{"HCLOUD_TOKEN": "x", "HCLOUD_INSTANCES_ADDRESS_FAMILY": "ipv5"}, stderr: "HCLOUD_INSTANCES_ADDRESS_FAMILY"},
		{name: "half a Robot login", env: map[string]string{"HCLOUD_TOKEN_FILE": tokenFile, "ROBOT_ENABLED": "true", "ROBOT_USER": "u"},
			stderr: "ROBOT_USER and ROBOT_PASSWORD"},
		{name: "ROBOT_ENABLED not a boolean", env: map[string]string{"HCLOUD_TOKEN_FILE": tokenFile, "ROBOT_ENABLED": "yes"}, stderr: "want true or false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runDoctor(t.Context(), tt.args, doctorIO{getenv: func(k string) string { return tt.env[k] }, environ: []string{},
				stdout: &stdout, stderr: &stderr, kube: kube})
			if code != doctorUsage || !strings.Contains(stderr.String(), tt.stderr) || stdout.Len() != 0 {
				t.Errorf("exit status %d, stderr %q, stdout %q; want %d and %q", code, stderr.String(), stdout.String(), doctorUsage, tt.stderr)
			}
		})
	}
}

func TestKubeClient(t *testing.T) {
	if _, err := kubeClient(filepath.Join(t.TempDir(), "missing"), time.Second); err == nil {
		t.Error("a kubeconfig that does not exist was accepted")
	}
	path := filepath.Join(t.TempDir(), "config")
	config := "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: https://127.0.0.1:6443}}]\n" +
		"users: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n"
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := kubeClient(path, time.Second); err != nil {
		t.Error(err)
	}
	t.Setenv("KUBECONFIG", path)
	if _, err := kubeClient("", time.Second); err != nil {
		t.Errorf("$KUBECONFIG: %v", err)
	}
}

// TestDoctorReadsTheDeploymentsSettings: with no HCLOUD_* set here, the
// CCM's Deployment's environment is the configuration: its token from a
// Secret, its load balancer location as a plain value, its network from a
// ConfigMap, all of the CCM's container, not a sidecar before it; a
// setting made here wins over the Deployment's.
func TestDoctorReadsTheDeploymentsSettings(t *testing.T) {
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "hcloud-cloud-controller-manager"},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "sidecar", Env: []corev1.EnvVar{{Name: "HCLOUD_LOAD_BALANCERS_LOCATION", Value: "nbg1"}}}, {
			Name: "ccm", Args: []string{"--cloud-provider=hcloud"},
			Env: []corev1.EnvVar{
				{Name: "HCLOUD_TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
					LocalObjectReference: corev1.LocalObjectReference{Name: "hcloud"}, Key: "token"}}},
				{Name: "HCLOUD_LOAD_BALANCERS_LOCATION", Value: "mars1"},
			},
			EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "ccm-settings"}}}},
		}}}}}}
	settings := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "ccm-settings"},
		Data: map[string]string{"HCLOUD_NETWORK": "k8s", "OTHER": "x"}}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-web"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80, NodePort: 30080}}}}
	endpoint, kube, _ := doctorCluster(t, "kube-system", dep, settings, svc)
	run := func(env map[string]string) doctor.Report {
		t.Helper()
		var stdout, stderr bytes.Buffer
		runDoctor(t.Context(), []string{"-o", "json"}, doctorIO{getenv: func(k string) string { return env[k] }, stdout: &stdout, stderr: &stderr, kube: kube})
		var r doctor.Report
		if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
			t.Fatalf("%v; stderr %s", err, stderr.String())
		}
		return r
	}
	has := func(r doctor.Report, check, subject, text string) bool {
		for _, f := range r.Findings {
			if f.Check == check && strings.HasPrefix(f.Subject, subject) && strings.Contains(f.Message, text) {
				return true
			}
		}
		return false
	}
	r := run(map[string]string{"HCLOUD_ENDPOINT": endpoint})
	if !has(r, "token", "token (key token of Secret kube-system/hcloud of Deployment kube-system/hcloud-cloud-controller-manager)", "valid") {
		t.Errorf("the token is not the Deployment's: %+v", r.Findings)
	}
	if !has(r, "service", "service/default/web", `location "mars1"`) || !has(r, "network", "network/k8s", "") {
		t.Errorf("the Deployment's location and network were not read: %+v", r.Findings)
	}
	r = run(map[string]string{"HCLOUD_ENDPOINT": endpoint, "HCLOUD_LOAD_BALANCERS_LOCATION": "fsn1"})
	if has(r, "service", "service/default/web", `location "mars1"`) {
		t.Errorf("HCLOUD_LOAD_BALANCERS_LOCATION set here did not win: %+v", r.Findings)
	}
}

// TestDoctorSilentAPIServer: an apiserver that accepts connections and
// never answers ends each request after -request-timeout; the doctor
// stops with an error naming the address, instead of waiting for ever.
func TestDoctorSilentAPIServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				_ = c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // read nothing, answer nothing
		}
	}()
	path := filepath.Join(t.TempDir(), "config")
	config := "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: http://" + ln.Addr().String() + "}}]\n" +
		"users: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n"
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := runDoctor(t.Context(), []string{"-kubeconfig", path, "-request-timeout", "300ms"},
		doctorIO{getenv: func(string) string { return "" }, stdout: &stdout, stderr: &stderr, kube: kubeClient})
	if took := time.Since(start); code != doctorUsage || took > 20*time.Second || !strings.Contains(stderr.String(), ln.Addr().String()) {
		t.Errorf("exit %d after %s, stderr %q; want %d within 20 s naming %s", code, took, stderr.String(), doctorUsage, ln.Addr())
	}
}
