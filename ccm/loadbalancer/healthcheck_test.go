package loadbalancer

import (
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// checkOf is a load balancer service's health check, as compared here.
func checkOf(s hcloud.LoadBalancerService) string {
	hc := s.HealthCheck
	out := string(hc.Protocol) + ":" + strconv.Itoa(hc.Port)
	if hc.HTTP != nil {
		out += hc.HTTP.Path
	}
	if hc.Interval != 15*time.Second {
		out += " every " + hc.Interval.String()
	}
	return out
}

// TestHealthChecksFollowKubernetes: a Local Service's load balancer checks
// kube-proxy's healthCheckNodePort at /healthz on every port, healthy only
// where an endpoint runs; a Cluster Service checks the nodePort over TCP,
// or kube-proxy's own /healthz when asked; annotations that aim the check
// elsewhere win, and tuning ones apply either way. A change of policy is
// one update_service per port, a resync none.
func TestHealthChecksFollowKubernetes(t *testing.T) {
	c := newLBCluster(t, 2, fakecloud.Options{})
	local := func(svc *corev1.Service) *corev1.Service {
		svc.Spec.ExternalTrafficPolicy, svc.Spec.HealthCheckNodePort = corev1.ServiceExternalTrafficPolicyLocal, 32100
		return svc
	}
	checks := func(svc *corev1.Service) []string {
		t.Helper()
		var out []string
		for _, s := range c.LoadBalancerOf(t, svc).Services {
			out = append(out, checkOf(s))
		}
		return out
	}
	for _, tt := range []struct {
		name string
		svc  *corev1.Service
		want []string
	}{
		{"local", local(lbService("local", []int32{80, 443})), []string{"http:32100/healthz", "http:32100/healthz"}},
		{"cluster", lbService("cluster", []int32{80}), []string{"tcp:30080"}},
		{"cluster with kube-proxy's", lbService("drain", []int32{80}, "health-check-kube-proxy", "true"), []string{"http:10256/healthz"}},
		{"local, aimed by annotation", local(lbService("aimed", []int32{80}, "health-check-port", "8081")), []string{"tcp:8081"}},
		{"local, tuned by annotation", local(lbService("tuned", []int32{80}, "health-check-interval", "5s")), []string{"http:32100/healthz every 5s"}},
		{"local wins over kube-proxy's", local(lbService("both", []int32{80}, "health-check-kube-proxy", "true")), []string{"http:32100/healthz"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c.ensure(t, tt.svc, c.nodes)
			if diff := cmp.Diff(tt.want, checks(tt.svc)); diff != "" {
				t.Errorf("health checks (-want +got):\n%s", diff)
			}
			if _, n := c.ensure(t, tt.svc, c.nodes); n != 0 {
				t.Errorf("a resync sent %d requests, want none", n)
			}
		})
	}

	// The policy changed: the health checks follow, one update_service a port.
	svc := local(lbService("switch", []int32{80, 443}))
	c.ensure(t, svc, c.nodes)
	svc.Spec.ExternalTrafficPolicy, svc.Spec.HealthCheckNodePort = corev1.ServiceExternalTrafficPolicyCluster, 0
	c.FC.ResetCounters()
	c.ensure(t, svc, c.nodes)
	if diff := cmp.Diff([]string{"tcp:30080", "tcp:30443"}, checks(svc)); diff != "" {
		t.Errorf("after Local became Cluster (-want +got):\n%s", diff)
	}
	if n := c.FC.Requests("POST", "/load_balancers/{id}/actions/update_service"); n != 2 {
		t.Errorf("%d update_service, want 2 (%v)", n, c.FC.Counters())
	}
}

// TestKubeProxyCheckDefault: HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_KUBE_PROXY
// is the default the annotation overrides either way.
func TestKubeProxyCheckDefault(t *testing.T) {
	for _, tt := range []struct {
		env        bool
		annotation []string
		want       int
	}{
		{false, nil, 0},
		{true, nil, kubeProxyHealthzPort},
		{true, []string{"health-check-kube-proxy", "false"}, 0},
		{false, []string{"health-check-kube-proxy", "true"}, kubeProxyHealthzPort},
	} {
		svc := lbService("s", []int32{80}, tt.annotation...)
		o, err := annotation.Parse(svc, annotation.Defaults{Type: "lb11", HealthCheckKubeProxy: tt.env})
		if err != nil {
			t.Fatal(err)
		}
		if got := kubeHealth(svc, o.HealthCheck); got != tt.want {
			t.Errorf("env %v, annotations %v: checks port %d, want %d", tt.env, tt.annotation, got, tt.want)
		}
	}
}
