package ccm

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/probes"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// Readiness fails while the cloud answers nothing but errors, naming it,
// and recovers with the next answer.
func TestReadinessFollowsTheCloud(t *testing.T) {
	c := newCloud(t, 2, fakecloud.Options{})
	cfg := testConfig(c)
	cfg.MetricsAddress = "127.0.0.1:0"
	cl, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := httpGet(t, cl, "/readyz"); got != "200 ok" {
		t.Fatalf("/readyz = %q once started", got)
	}
	if _, err := c.FC.AddFault(fakecloud.Rule{Path: "/**", Status: 500}); err != nil {
		t.Fatal(err)
	}
	i, _ := cl.InstancesV2()
	if _, err := i.InstanceMetadata(t.Context(), node("node-0404", "")); err == nil {
		t.Fatal("a lookup during the outage succeeded")
	}
	if got := httpGet(t, cl, "/readyz"); !strings.HasPrefix(got, "503 cloud: the Hetzner API has not answered since") {
		t.Errorf("/readyz during the outage = %q, want 503 naming the cloud", got)
	}
	if got := httpGet(t, cl, "/healthz"); got != "200 ok" {
		t.Errorf("/healthz during the outage = %q: an outage is no reason to restart", got)
	}
	c.FC.ClearFaults()
	_, _ = i.InstanceMetadata(t.Context(), node("node-0404", "")) // answered: no such server
	if got := httpGet(t, cl, "/readyz"); got != "200 ok" {
		t.Errorf("/readyz after the outage = %q, want 200 ok", got)
	}
}

// Readiness fails while the apiserver does not answer its /readyz, and
// recovers when it does.
func TestReadinessFollowsTheAPIServer(t *testing.T) {
	var down atomic.Bool
	apiserver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" || down.Load() {
			http.Error(w, "etcd is gone", http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	defer apiserver.Close()
	kube, err := kubernetes.NewForConfig(&rest.Config{Host: apiserver.URL})
	if err != nil {
		t.Fatal(err)
	}
	c := newCloud(t, 1, fakecloud.Options{})
	cfg := testConfig(c)
	cfg.MetricsAddress = "127.0.0.1:0"
	cl, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cl.AddCheck(Readiness, "apiserver", probes.APIServerCheck(kube, 0))
	if got := httpGet(t, cl, "/readyz"); got != "200 ok" {
		t.Errorf("/readyz with the apiserver up = %q", got)
	}
	down.Store(true)
	if got := httpGet(t, cl, "/readyz"); !strings.HasPrefix(got, "503 apiserver: the apiserver does not answer") {
		t.Errorf("/readyz with the apiserver down = %q, want 503 naming it", got)
	}
	down.Store(false)
	if got := httpGet(t, cl, "/readyz"); got != "200 ok" {
		t.Errorf("/readyz with the apiserver back = %q", got)
	}
}
