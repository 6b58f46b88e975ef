package fakecloud

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/metadata"
)

func TestMetadataServiceAnswersForEachServer(t *testing.T) {
	f := newFixture(t, Options{})
	w, err := ParseWorld([]byte(`
networks: [{name: k8s, ip_range: 10.0.0.0/16, subnets: [{type: cloud, ip_range: 10.0.0.0/24, network_zone: eu-central}]}]
servers:
  - {name: cp-1, location: nbg1, networks: [{network: k8s, ip: 10.0.0.5}]}
  - {name: lonely}
`))
	if err == nil {
		err = f.fc.Seed(w)
	}
	if err != nil {
		t.Fatal(err)
	}
	f.fc.ResetCounters()
	md := metadata.NewClient(metadata.WithEndpoint(f.url + "/metadata/cp-1/hetzner/v1/metadata"))
	if !md.IsHcloudServer() {
		t.Fatal("metadata service not answering")
	}
	host, _ := md.Hostname()
	region, _ := md.Region()
	zone, _ := md.AvailabilityZone()
	id, err := md.InstanceID()
	if host != "cp-1" || region != "nbg1" || zone != "nbg1-dc3" || err != nil || id < 1 {
		t.Errorf("hostname %q region %q zone %q id %d (%v)", host, region, zone, id, err)
	}
	// The same server by ID, and its private networks as the real service writes them.
	byID := metadata.NewClient(metadata.WithEndpoint(f.url + "/metadata/" + strconv.FormatInt(id, 10) + "/hetzner/v1/metadata"))
	nets, err := byID.PrivateNetworks()
	if err != nil || !strings.Contains(nets, "network_id: ") || !strings.Contains(nets, "ip: 10.0.0.5") ||
		!strings.Contains(nets, "subnet: 10.0.0.0/24") || !strings.Contains(nets, "gateway: 10.0.0.1") {
		t.Errorf("private networks: %q (%v)", nets, err)
	}
	lonely := metadata.NewClient(metadata.WithEndpoint(f.url + "/metadata/lonely/hetzner/v1/metadata"))
	if nets, err := lonely.PrivateNetworks(); err != nil || strings.Contains(nets, "network_id") {
		t.Errorf("server without networks: %q (%v)", nets, err)
	}
	gone := metadata.NewClient(metadata.WithEndpoint(f.url + "/metadata/nope/hetzner/v1/metadata"))
	if _, err := gone.Hostname(); err == nil {
		t.Error("unknown server answered")
	}
	if n := f.fc.Requests("", ""); n != 0 {
		t.Errorf("metadata counted as %d API requests", n)
	}
}

// At /hetzner/v1/metadata, as at 169.254.169.254, the service answers for
// the server the request comes from, by private or public address.
func TestMetadataServiceKnowsTheCaller(t *testing.T) {
	fc := New(Options{})
	w, err := ParseWorld([]byte(`
networks: [{name: k8s, ip_range: 10.0.0.0/16, subnets: [{type: cloud, ip_range: 10.0.0.0/24, network_zone: eu-central}]}]
servers:
  - {name: cp-1, location: nbg1, networks: [{network: k8s, ip: 10.0.0.5}]}
  - {name: worker-1, location: fsn1, networks: [{network: k8s, ip: 10.0.0.6}]}
`))
	if err == nil {
		err = fc.Seed(w)
	}
	if err != nil {
		t.Fatal(err)
	}
	ask := func(from, path string) (int, string) {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r.RemoteAddr = from + ":40000"
		rec := httptest.NewRecorder()
		fc.ServeHTTP(rec, r)
		return rec.Code, rec.Body.String()
	}
	if code, body := ask("10.0.0.6", "/hetzner/v1/metadata/hostname"); code != 200 || body != "worker-1" {
		t.Errorf("hostname from 10.0.0.6: %d %q, want worker-1", code, body)
	}
	code, body := ask("10.0.0.5", "/hetzner/v1/metadata")
	if code != 200 || !strings.Contains(body, "hostname: cp-1\n") || !strings.Contains(body, "ip: 10.0.0.5") {
		t.Errorf("document from 10.0.0.5: %d %q", code, body)
	}
	_, public := ask("192.0.2.1", "/metadata/cp-1/hetzner/v1/metadata/public-ipv4")
	if code, body := ask(public, "/hetzner/v1/metadata/hostname"); code != 200 || body != "cp-1" {
		t.Errorf("hostname from public %s: %d %q", public, code, body)
	}
	if code, _ := ask("192.0.2.1", "/hetzner/v1/metadata/hostname"); code != 404 {
		t.Errorf("a stranger got %d, want 404", code)
	}
}
