package dnsserve

import (
	"sync"
	"testing"

	"github.com/miekg/dns"
)

// TestIndexReusedWhileTheVersionStays: a zone whose Version has not
// changed is answered from the index built the first time, whatever
// records the Source hands over; a new Version is indexed again, and a
// zone without one every time.
func TestIndexReusedWhileTheVersionStays(t *testing.T) {
	apex := []string{"example.com. 3600 IN SOA ns1.example.com. hostmaster.example.com. 1 86400 10800 3600000 300"}
	var mu sync.Mutex
	current := zoneOf(t, "example.com.", append(apex, "www.example.com. 60 IN A 192.0.2.1")...)
	s := startServer(t, func(string) (Zone, bool) {
		mu.Lock()
		defer mu.Unlock()
		return current, true
	})
	set := func(version, addr string) {
		mu.Lock()
		defer mu.Unlock()
		current = zoneOf(t, "example.com.", append(apex, "www.example.com. 60 IN A "+addr)...)
		current.Version = version
	}
	answer := func() string {
		r, _ := ask(t, "udp", s.Addr(), new(dns.Msg).SetQuestion("www.example.com.", dns.TypeA))
		if len(r.Answer) != 1 {
			t.Fatalf("answer %v", r.Answer)
		}
		return r.Answer[0].(*dns.A).A.String()
	}
	for _, step := range []struct{ version, addr, want string }{
		{"", "192.0.2.2", "192.0.2.2"},   // no version: what the Source says
		{"v1", "192.0.2.3", "192.0.2.3"}, // a new version: indexed
		{"v1", "192.0.2.4", "192.0.2.3"}, // the same: the index of v1
		{"v2", "192.0.2.5", "192.0.2.5"},
		{"", "192.0.2.6", "192.0.2.6"},
	} {
		set(step.version, step.addr)
		if got := answer(); got != step.want {
			t.Errorf("version %q with %s: answered %s, want %s", step.version, step.addr, got, step.want)
		}
	}
}
