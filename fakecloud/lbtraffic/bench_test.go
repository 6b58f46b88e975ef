package lbtraffic

import (
	"io"
	"net/http"
	"testing"
)

// benchGet measures HTTP GETs on one kept-alive connection: to the
// backend itself, or through a service of the protocol.
func benchGet(b *testing.B, proto string) {
	f := newFixture(b)
	srv := f.backend("10.0.0.2:30080", "one")
	url := srv.URL
	if proto != "" {
		f.plane.Sync([]LoadBalancer{{ID: 1, Addr: lbIP, Services: []Service{service(proto, 80)}, Targets: []Target{t1}}})
		for st, _ := f.plane.Health(1, 80, "server:1"); st != Healthy; st, _ = f.plane.Health(1, 80, "server:1") {
		}
		url = "http://" + f.at("203.0.113.10:80") + "/"
	}
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	for b.Loop() {
		resp, err := c.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

func BenchmarkDirect(b *testing.B)      { benchGet(b, "") }
func BenchmarkTCPService(b *testing.B)  { benchGet(b, "tcp") }
func BenchmarkHTTPService(b *testing.B) { benchGet(b, "http") }
