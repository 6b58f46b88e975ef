package fakecloud

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// benchWorld seeds n servers in a network, with the rate limit off.
func benchWorld(b *testing.B, n int) (*Server, []int64) {
	b.Helper()
	fc := New(Options{RateLimit: -1})
	w := World{Networks: []SeedNetwork{{Name: "n", IPRange: "10.0.0.0/8",
		Subnets: []schema.NetworkSubnet{{Type: "cloud", IPRange: "10.0.0.0/16", NetworkZone: "eu-central"}}}}}
	for i := range n {
		w.Servers = append(w.Servers, SeedServer{Name: fmt.Sprintf("node-%05d", i), Labels: map[string]string{"role": "worker"},
			Networks: []SeedServerNetwork{{Network: "n"}}})
	}
	if err := fc.Seed(w); err != nil {
		b.Fatal(err)
	}
	var st world.Snapshot
	if err := json.Unmarshal([]byte(export(b, fc)), &st); err != nil {
		b.Fatal(err)
	}
	ids := make([]int64, 0, len(st.Servers))
	for _, s := range st.Servers {
		ids = append(ids, s.ID)
	}
	return fc, ids
}

func serveInProcess(b *testing.B, fc *Server, path string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("GET", path, nil)
	req.Header.Set("Authorization", "Bearer "+DefaultToken)
	rec := httptest.NewRecorder()
	fc.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
	}
	return rec
}

// BenchmarkGetServer is GET /v1/servers/{id} served in-process.
func BenchmarkGetServer(b *testing.B) {
	fc, ids := benchWorld(b, 1000)
	path := fmt.Sprintf("/v1/servers/%d", ids[500])
	for b.Loop() {
		serveInProcess(b, fc, path)
	}
}

// BenchmarkGetServerHcloudGo is the same GET through hcloud-go over loopback.
func BenchmarkGetServerHcloudGo(b *testing.B) {
	fc, ids := benchWorld(b, 1000)
	client := fakecloudtest.Client(fakecloudtest.Serve(b, fc), DefaultToken)
	for b.Loop() {
		if s, _, err := client.Server.GetByID(b.Context(), ids[500]); err != nil || s == nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListServers10k pages through 10,000 servers, 50 a page, in-process.
func BenchmarkListServers10k(b *testing.B) {
	fc, _ := benchWorld(b, 10000)
	for b.Loop() {
		for page := 1; page <= 200; page++ {
			serveInProcess(b, fc, fmt.Sprintf("/v1/servers?page=%d&per_page=50", page))
		}
	}
}

// BenchmarkListServers10kHcloudGo is hcloud-go's Server.All over loopback.
func BenchmarkListServers10kHcloudGo(b *testing.B) {
	fc, _ := benchWorld(b, 10000)
	client := fakecloudtest.Client(fakecloudtest.Serve(b, fc), DefaultToken)
	for b.Loop() {
		all, err := client.Server.All(b.Context())
		if err != nil || len(all) != 10000 {
			b.Fatal(len(all), err)
		}
	}
}

// BenchmarkCreateLoadBalancer creates a load balancer with 2 services and 10
// targets through hcloud-go and waits for its action, then deletes it.
func BenchmarkCreateLoadBalancer(b *testing.B) {
	fc, ids := benchWorld(b, 10)
	client := fakecloudtest.Client(fakecloudtest.Serve(b, fc), DefaultToken)
	var targets []hcloud.LoadBalancerCreateOptsTarget
	for _, id := range ids {
		targets = append(targets, hcloud.LoadBalancerCreateOptsTarget{Type: hcloud.LoadBalancerTargetTypeServer,
			Server: hcloud.LoadBalancerCreateOptsTargetServer{Server: &hcloud.Server{ID: id}}, UsePrivateIP: hcloud.Ptr(true)})
	}
	network := &hcloud.Network{ID: worldOf(b, fc).Networks[0].ID}
	for b.Loop() {
		res, _, err := client.LoadBalancer.Create(b.Context(), hcloud.LoadBalancerCreateOpts{
			Name: "lb", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"}, Network: network,
			Services: []hcloud.LoadBalancerCreateOptsService{
				{Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: hcloud.Ptr(80), DestinationPort: hcloud.Ptr(30080)},
				{Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: hcloud.Ptr(443), DestinationPort: hcloud.Ptr(30443)},
			},
			Targets: targets,
		})
		if err != nil {
			b.Fatal(err)
		}
		if err := client.Action.WaitFor(b.Context(), res.Action); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if _, _, err := client.LoadBalancer.DeleteWithResult(b.Context(), res.LoadBalancer); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkExport10k writes the snapshot of 10,000 servers, as the state
// file writer does after a change; it reports the snapshot's size.
func BenchmarkExport10k(b *testing.B) {
	fc, _ := benchWorld(b, 10000)
	var size int
	for b.Loop() {
		data, err := fc.Export()
		if err != nil {
			b.Fatal(err)
		}
		size = len(data)
	}
	b.ReportMetric(float64(size), "bytes")
	b.ReportMetric(float64(size)/10000, "bytes/server")
}
