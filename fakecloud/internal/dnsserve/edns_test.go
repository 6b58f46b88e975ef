package dnsserve

import (
	"fmt"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

// bigTXT is a TXT set of about 3 KB: too big for 512 or 1232 bytes, not for 4096.
func bigTXT(t *testing.T) (Source, int) {
	lines := append([]string(nil), exampleZone...)
	const n = 30
	for i := range n {
		lines = append(lines, fmt.Sprintf(`big.example.com. 300 IN TXT "%02d %s"`, i, strings.Repeat("y", 90)))
	}
	return staticSource(zoneOf(t, "example.com.", lines...)), n
}

func TestTruncation(t *testing.T) {
	src, n := bigTXT(t)
	s := startServer(t, src)
	for _, tc := range []struct {
		name      string
		network   string
		edns      uint16 // 0: no OPT in the query
		truncated bool
		limit     int // the answer's size on the wire at most
	}{
		{"UDP without EDNS", "udp", 0, true, dns.MinMsgSize},
		{"UDP with EDNS 1232", "udp", 1232, true, 1232},
		{"UDP with EDNS below 512 means 512", "udp", 100, true, dns.MinMsgSize},
		{"UDP with EDNS 4096", "udp", 4096, false, 4096},
		{"TCP without EDNS", "tcp", 0, false, dns.MaxMsgSize},
		{"TCP with EDNS 1232", "tcp", 1232, false, dns.MaxMsgSize},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := new(dns.Msg).SetQuestion("big.example.com.", dns.TypeTXT)
			if tc.edns != 0 {
				q.SetEdns0(tc.edns, false)
			}
			r, size := ask(t, tc.network, s.Addr(), q)
			if r.Rcode != dns.RcodeSuccess || !r.Authoritative {
				t.Errorf("rcode %s AA %v, want NOERROR and AA", dns.RcodeToString[r.Rcode], r.Authoritative)
			}
			if r.Truncated != tc.truncated {
				t.Errorf("TC %v, want %v", r.Truncated, tc.truncated)
			}
			if size > tc.limit {
				t.Errorf("answer is %d bytes, over the limit %d", size, tc.limit)
			}
			if got := len(r.Answer); tc.truncated == (got == n) {
				t.Errorf("%d of %d TXT records with TC %v", got, n, r.Truncated)
			}
			if (r.IsEdns0() != nil) != (tc.edns != 0) {
				t.Errorf("OPT in the answer %v, in the query %v", r.IsEdns0() != nil, tc.edns != 0)
			}
		})
	}
}

func TestEDNSEcho(t *testing.T) {
	s := startServer(t, exampleSource(t))
	for _, network := range transports {
		t.Run(network, func(t *testing.T) {
			q := new(dns.Msg).SetQuestion("www.example.com.", dns.TypeA)
			q.SetEdns0(4096, true)
			r, _ := ask(t, network, s.Addr(), q)
			opt := r.IsEdns0()
			if opt == nil {
				t.Fatal("no OPT in the answer to a query with one")
			}
			if r.Extra[len(r.Extra)-1] != opt || opt.UDPSize() != advertisedUDPSize || opt.Version() != 0 || opt.Do() {
				t.Errorf("OPT %v, want the last record, size %d, version 0, DO clear (no DNSSEC)", opt, advertisedUDPSize)
			}
			if r.Rcode != dns.RcodeSuccess || len(r.Answer) != 2 {
				t.Errorf("rcode %s, %d answers, want NOERROR and 2", dns.RcodeToString[r.Rcode], len(r.Answer))
			}

			q = new(dns.Msg).SetQuestion("www.example.com.", dns.TypeA)
			if r, _ := ask(t, network, s.Addr(), q); r.IsEdns0() != nil {
				t.Errorf("OPT %v in the answer to a query without one", r.IsEdns0())
			}
		})
	}
}

func TestEDNSVersionUnknown(t *testing.T) {
	s := startServer(t, exampleSource(t))
	q := new(dns.Msg).SetQuestion("www.example.com.", dns.TypeA)
	q.SetEdns0(1232, false)
	q.IsEdns0().SetVersion(1)
	r, _ := ask(t, "udp", s.Addr(), q)
	if r.Rcode != dns.RcodeBadVers || len(r.Answer) != 0 {
		t.Errorf("rcode %s with %d answers, want BADVERS and none", dns.RcodeToString[r.Rcode], len(r.Answer))
	}
	if opt := r.IsEdns0(); opt == nil || opt.Version() != 0 {
		t.Errorf("OPT %v, want one of version 0", opt)
	}
}
