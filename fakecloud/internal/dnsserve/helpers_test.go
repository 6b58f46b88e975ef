package dnsserve

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/miekg/dns"
)

// exampleZone is the fixture: apex SOA (negative TTL 300) and three NS, the
// common types, CNAME chains and a loop, wildcards, a delegation with glue
// and empty non-terminals (ent., b.ent., _tcp.).
var exampleZone = []string{
	"example.com. 3600 IN SOA ns1.example.com. hostmaster.example.com. 2024010101 7200 900 1209600 300",
	"example.com. 3600 IN NS ns1.example.com.",
	"example.com. 3600 IN NS ns2.example.com.",
	"example.com. 3600 IN NS ns3.example.net.",
	"example.com. 3600 IN MX 10 mail.example.com.",
	`example.com. 3600 IN TXT "v=spf1 -all"`,
	`example.com. 3600 IN CAA 0 issue "letsencrypt.org"`,
	"ns1.example.com. 3600 IN A 192.0.2.1",
	"ns2.example.com. 3600 IN AAAA 2001:db8::2",
	"www.example.com. 300 IN A 192.0.2.10",
	"www.example.com. 300 IN A 192.0.2.11",
	"www.example.com. 300 IN AAAA 2001:db8::10",
	"mail.example.com. 300 IN A 192.0.2.25",
	"_sip._tcp.example.com. 300 IN SRV 10 60 5060 sip.example.com.",
	"alias.example.com. 300 IN CNAME alias2.example.com.",
	"alias2.example.com. 300 IN CNAME www.example.com.",
	"outside.example.com. 300 IN CNAME www.example.org.",
	"dangling.example.com. 300 IN CNAME nowhere.example.com.",
	"loop1.example.com. 300 IN CNAME loop2.example.com.",
	"loop2.example.com. 300 IN CNAME loop1.example.com.",
	"tosub.example.com. 300 IN CNAME host.sub.example.com.",
	"*.wild.example.com. 300 IN A 192.0.2.99",
	`*.wild.example.com. 300 IN TXT "wildcard"`,
	"host.wild.example.com. 300 IN A 192.0.2.98",
	"*.cwild.example.com. 300 IN CNAME www.example.com.",
	"sub.example.com. 3600 IN NS ns1.sub.example.com.",
	"sub.example.com. 3600 IN NS ns.example.net.",
	"sub.example.com. 3600 IN DS 12345 13 2 2BB183AF5F22588179A53B0A98631FAD1A292118B6A3D9A2F96C2B0F7C3C7A21",
	"ns1.sub.example.com. 3600 IN A 192.0.2.53",
	"a.b.ent.example.com. 300 IN A 192.0.2.7",
}

func parseRRs(t *testing.T, lines ...string) []dns.RR {
	t.Helper()
	var out []dns.RR
	for _, l := range lines {
		rr, err := dns.NewRR(l)
		if err != nil || rr == nil {
			t.Fatalf("parse %q: %v", l, err)
		}
		out = append(out, rr)
	}
	return out
}

func zoneOf(t *testing.T, origin string, lines ...string) Zone {
	t.Helper()
	return Zone{Origin: origin, Records: parseRRs(t, lines...)}
}

// staticSource serves zones by the longest origin enclosing the name.
func staticSource(zones ...Zone) Source {
	return func(name string) (Zone, bool) {
		var best Zone
		found := false
		for _, z := range zones {
			if dns.IsSubDomain(z.Origin, name) && (!found || len(z.Origin) > len(best.Origin)) {
				best, found = z, true
			}
		}
		return best, found
	}
}

func startServer(t *testing.T, src Source, opts ...Option) *Server {
	t.Helper()
	s, err := Listen("127.0.0.1:0", src, append([]Option{WithTimeout(2 * time.Second)}, opts...)...)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

var transports = []string{"udp", "tcp"}

// ask sends m over network and returns the answer and its size on the wire.
func ask(t *testing.T, network, addr string, m *dns.Msg) (*dns.Msg, int) {
	t.Helper()
	r, size, err := exchange(network, addr, m)
	if err != nil {
		t.Fatal(err)
	}
	return r, size
}

// exchange is ask for goroutines other than the test's.
func exchange(network, addr string, m *dns.Msg) (*dns.Msg, int, error) {
	co, err := dns.DialTimeout(network, addr, 2*time.Second)
	if err != nil {
		return nil, 0, fmt.Errorf("dial %s %s: %w", network, addr, err)
	}
	defer co.Close()
	co.UDPSize = dns.MaxMsgSize
	if err := co.SetDeadline(time.Now().Add(5 * time.Second)); err != nil {
		return nil, 0, err
	}
	if err := co.WriteMsg(m); err != nil {
		return nil, 0, fmt.Errorf("write %s: %w", network, err)
	}
	p, err := co.ReadMsgHeader(nil)
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", network, err)
	}
	r := new(dns.Msg)
	if err := r.Unpack(p); err != nil {
		return nil, 0, fmt.Errorf("unpack %s answer: %w", network, err)
	}
	if r.Id != m.Id || !r.Response {
		return nil, 0, fmt.Errorf("answer id %d response %v, want id %d and a response", r.Id, r.Response, m.Id)
	}
	return r, len(p), nil
}

// strs renders records for comparison, leaving out OPT.
func strs(rrs []dns.RR) []string {
	var out []string
	for _, rr := range rrs {
		if rr.Header().Rrtype != dns.TypeOPT {
			out = append(out, rr.String())
		}
	}
	return out
}

// canon renders zone-file lines as miekg/dns prints them.
func canon(t *testing.T, lines ...string) []string {
	t.Helper()
	return strs(parseRRs(t, lines...))
}

// qcase is one query and the exact answer expected.
type qcase struct {
	name              string
	qname             string
	qtype             uint16
	rcode             int
	aa                bool
	answer, ns, extra []string
}

// runCases asks every case over UDP and TCP and compares rcode, flags,
// the echoed question and each section exactly.
func runCases(t *testing.T, src Source, cases []qcase) {
	t.Helper()
	s := startServer(t, src)
	for _, tc := range cases {
		for _, network := range transports {
			t.Run(tc.name+"/"+network, func(t *testing.T) {
				m := new(dns.Msg).SetQuestion(tc.qname, tc.qtype)
				r, _ := ask(t, network, s.Addr(), m)
				checkAnswer(t, m, r, tc)
			})
		}
	}
}

func checkAnswer(t *testing.T, q, r *dns.Msg, tc qcase) {
	t.Helper()
	if r.Rcode != tc.rcode {
		t.Errorf("rcode %s, want %s", dns.RcodeToString[r.Rcode], dns.RcodeToString[tc.rcode])
	}
	if r.Authoritative != tc.aa {
		t.Errorf("AA %v, want %v", r.Authoritative, tc.aa)
	}
	if r.Truncated || r.RecursionAvailable {
		t.Errorf("TC %v RA %v, want both off", r.Truncated, r.RecursionAvailable)
	}
	if diff := cmp.Diff(q.Question, r.Question); diff != "" {
		t.Errorf("question not echoed (-asked +answered):\n%s", diff)
	}
	for _, sec := range []struct {
		name      string
		got, want []string
	}{
		{"answer", strs(r.Answer), canon(t, tc.answer...)},
		{"authority", strs(r.Ns), canon(t, tc.ns...)},
		{"additional", strs(r.Extra), canon(t, tc.extra...)},
	} {
		if diff := cmp.Diff(sec.want, sec.got); diff != "" {
			t.Errorf("%s section (-want +got):\n%s", sec.name, diff)
		}
	}
}

// negSOA is the fixture's SOA as a negative answer carries it.
const negSOA = "example.com. 300 IN SOA ns1.example.com. hostmaster.example.com. 2024010101 7200 900 1209600 300"

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
