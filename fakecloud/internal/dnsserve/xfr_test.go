package dnsserve

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/miekg/dns"
)

// axfr transfers origin from addr with miekg/dns's client and returns the
// records and the number of messages they came in.
func axfr(t *testing.T, addr, origin string) ([]string, int) {
	t.Helper()
	q := new(dns.Msg).SetAxfr(origin)
	tr := &dns.Transfer{DialTimeout: 2 * time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second}
	env, err := tr.In(q, addr)
	if err != nil {
		t.Fatalf("transfer: %v", err)
	}
	var got []string
	n := 0
	for e := range env {
		if e.Error != nil {
			t.Fatalf("transfer envelope %d: %v", n, e.Error)
		}
		n++
		got = append(got, strs(e.RR)...)
	}
	return got, n
}

// ixfr asks for an IXFR from serial 1 over TCP and reads messages until the
// closing SOA (miekg/dns's client would read a full answer as a difference
// sequence).
func ixfr(t *testing.T, addr, origin string) []string {
	t.Helper()
	co, err := dns.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer co.Close()
	if err := co.SetDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	q := new(dns.Msg).SetIxfr(origin, 1, "ns.client.test.", "h.client.test.")
	if err := co.WriteMsg(q); err != nil {
		t.Fatal(err)
	}
	var got []string
	for n := 1; ; n++ {
		r, err := co.ReadMsg()
		if err != nil {
			t.Fatalf("read message %d: %v", n, err)
		}
		if r.Rcode != dns.RcodeSuccess || !r.Authoritative {
			t.Fatalf("message %d: rcode %s AA %v", n, dns.RcodeToString[r.Rcode], r.Authoritative)
		}
		got = append(got, strs(r.Answer)...)
		if len(got) > 1 && strings.Contains(got[len(got)-1], "\tSOA\t") {
			return got
		}
	}
}

// checkTransfer asserts the SOA first and last and every other record once.
func checkTransfer(t *testing.T, got []string, zone []string) {
	t.Helper()
	want := canon(t, zone...)
	if len(got) < 2 {
		t.Fatalf("transfer of %d records, want the zone's %d and the closing SOA", len(got), len(want))
	}
	if got[0] != want[0] || got[len(got)-1] != want[0] {
		t.Fatalf("transfer does not open and close with the SOA %q: first %q, last %q", want[0], got[0], got[len(got)-1])
	}
	if diff := cmp.Diff(sorted(want[1:]), sorted(got[1:len(got)-1])); diff != "" {
		t.Errorf("records between the SOAs (-zone +transferred):\n%s", diff)
	}
}

func TestAXFR(t *testing.T) {
	s := startServer(t, exampleSource(t))
	got, _ := axfr(t, s.Addr(), "example.com.")
	checkTransfer(t, got, exampleZone)
}

func TestAXFRSpansMessages(t *testing.T) {
	lines := append([]string(nil), exampleZone...)
	for i := range 1000 {
		lines = append(lines, fmt.Sprintf(`t%d.example.com. 300 IN TXT "%s"`, i, strings.Repeat("x", 40)))
	}
	s := startServer(t, staticSource(zoneOf(t, "example.com.", lines...)))
	got, n := axfr(t, s.Addr(), "example.com.")
	checkTransfer(t, got, lines)
	if n < 2 {
		t.Errorf("a zone of %d records came in %d message, want several", len(lines), n)
	}
}

func TestIXFROverTCPIsAFullTransfer(t *testing.T) {
	s := startServer(t, exampleSource(t))
	checkTransfer(t, ixfr(t, s.Addr(), "example.com."), exampleZone)
}

func TestTransferRefusals(t *testing.T) {
	s := startServer(t, exampleSource(t))
	soa := canon(t, exampleZone[0])
	for _, tc := range []struct {
		name    string
		network string
		qname   string
		qtype   uint16
		rcode   int
		answer  []string
	}{
		{"AXFR over UDP", "udp", "example.com.", dns.TypeAXFR, dns.RcodeNotImplemented, nil},
		{"IXFR over UDP gets the SOA", "udp", "example.com.", dns.TypeIXFR, dns.RcodeSuccess, soa},
		{"AXFR below the origin", "tcp", "www.example.com.", dns.TypeAXFR, dns.RcodeNotAuth, nil},
		{"AXFR of a foreign zone", "tcp", "example.org.", dns.TypeAXFR, dns.RcodeRefused, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := new(dns.Msg).SetQuestion(tc.qname, tc.qtype)
			r, _ := ask(t, tc.network, s.Addr(), q)
			if r.Rcode != tc.rcode {
				t.Errorf("rcode %s, want %s", dns.RcodeToString[r.Rcode], dns.RcodeToString[tc.rcode])
			}
			if diff := cmp.Diff(tc.answer, strs(r.Answer)); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			if len(r.Ns)+len(r.Extra) != 0 {
				t.Errorf("authority %v additional %v, want both empty", r.Ns, r.Extra)
			}
		})
	}
}
