package dnsserve

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/miekg/dns"
)

func TestRefused(t *testing.T) {
	s := startServer(t, exampleSource(t))
	for _, tc := range []struct {
		name   string
		qname  string
		qclass uint16
	}{
		{"foreign name", "www.example.org.", dns.ClassINET},
		{"the root", ".", dns.ClassINET},
		{"class CHAOS", "www.example.com.", dns.ClassCHAOS},
	} {
		for _, network := range transports {
			t.Run(tc.name+"/"+network, func(t *testing.T) {
				q := new(dns.Msg).SetQuestion(tc.qname, dns.TypeA)
				q.Question[0].Qclass = tc.qclass
				r, _ := ask(t, network, s.Addr(), q)
				checkAnswer(t, q, r, qcase{rcode: dns.RcodeRefused})
			})
		}
	}
}

func TestMalformedQueries(t *testing.T) {
	s := startServer(t, exampleSource(t))
	www := dns.Question{Name: "www.example.com.", Qtype: dns.TypeA, Qclass: dns.ClassINET}
	for _, tc := range []struct {
		name     string
		opcode   int
		question []dns.Question
		rcode    int
	}{
		{"NOTIFY", dns.OpcodeNotify, []dns.Question{www}, dns.RcodeNotImplemented},
		{"UPDATE", dns.OpcodeUpdate, []dns.Question{www}, dns.RcodeNotImplemented},
		{"STATUS", dns.OpcodeStatus, []dns.Question{www}, dns.RcodeNotImplemented},
		{"no question", dns.OpcodeQuery, nil, dns.RcodeFormatError},
		{"two questions", dns.OpcodeQuery, []dns.Question{www, www}, dns.RcodeFormatError},
	} {
		for _, network := range transports {
			t.Run(tc.name+"/"+network, func(t *testing.T) {
				q := &dns.Msg{MsgHdr: dns.MsgHdr{Id: dns.Id(), Opcode: tc.opcode}, Question: tc.question}
				r, _ := ask(t, network, s.Addr(), q)
				if r.Rcode != tc.rcode || r.Opcode != tc.opcode || r.Authoritative {
					t.Errorf("rcode %s opcode %d AA %v, want %s, %d, no AA",
						dns.RcodeToString[r.Rcode], r.Opcode, r.Authoritative, dns.RcodeToString[tc.rcode], tc.opcode)
				}
				var echo []dns.Question // FORMERR echoes no question, NOTIMP the one asked
				if tc.rcode == dns.RcodeNotImplemented {
					echo = tc.question
				}
				if diff := cmp.Diff(echo, r.Question); diff != "" {
					t.Errorf("question section (-want +got):\n%s", diff)
				}
				if len(r.Answer)+len(r.Ns)+len(r.Extra) != 0 {
					t.Errorf("sections %v %v %v, want all empty", r.Answer, r.Ns, r.Extra)
				}
			})
		}
	}
}

// TestSourcePerQuery checks that each query, a CNAME chain included, asks
// the Source once and answers from what it returned then.
func TestSourcePerQuery(t *testing.T) {
	var zone atomic.Pointer[Zone]
	var calls atomic.Int32
	set := func(wwwA string) {
		z := zoneOf(t, "example.com.", append(exampleZone[:9:9], "www.example.com. 300 IN A "+wwwA)...)
		zone.Store(&z)
	}
	src := func(name string) (Zone, bool) {
		calls.Add(1)
		z := *zone.Load()
		return z, dns.IsSubDomain(z.Origin, name)
	}
	s := startServer(t, src)
	for _, step := range []struct{ set, want string }{{"192.0.2.10", "192.0.2.10"}, {"192.0.2.200", "192.0.2.200"}} {
		set(step.set)
		calls.Store(0)
		for _, network := range transports {
			q := new(dns.Msg).SetQuestion("www.example.com.", dns.TypeA)
			r, _ := ask(t, network, s.Addr(), q)
			want := canon(t, "www.example.com. 300 IN A "+step.want)
			if diff := cmp.Diff(want, strs(r.Answer)); diff != "" {
				t.Errorf("%s after the zone changed (-want +got):\n%s", network, diff)
			}
		}
		if n := calls.Load(); n != 2 {
			t.Errorf("Source called %d times for 2 queries, want 2", n)
		}
	}
}

// TestConcurrentQueriesLeaveRecordsAlone runs answers that copy records
// (wildcards, negative SOAs) side by side; the race detector and a final
// comparison catch any write to the Source's records.
func TestConcurrentQueriesLeaveRecordsAlone(t *testing.T) {
	z := zoneOf(t, "example.com.", exampleZone...)
	before := strs(z.Records)
	s := startServer(t, staticSource(z))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for _, q := range []struct {
				name  string
				qtype uint16
			}{{"x.wild.example.com.", dns.TypeA}, {"nope.example.com.", dns.TypeA}, {"www.example.com.", dns.TypeMX}} {
				r, _, err := exchange(transports[i%2], s.Addr(), new(dns.Msg).SetQuestion(q.name, q.qtype))
				if err != nil {
					t.Error(err)
					return
				}
				if len(r.Answer)+len(r.Ns) != 1 {
					t.Errorf("%s: %d answers, %d authority, want one record", q.name, len(r.Answer), len(r.Ns))
				}
			}
		})
	}
	wg.Wait()
	if diff := cmp.Diff(before, strs(z.Records)); diff != "" {
		t.Errorf("answers changed the Source's records (-before +after):\n%s", diff)
	}
}

func TestStats(t *testing.T) {
	s := startServer(t, exampleSource(t))
	for _, q := range []string{"www.example.com.", "www.example.com.", "nope.example.com.", "www.example.org."} {
		ask(t, "udp", s.Addr(), new(dns.Msg).SetQuestion(q, dns.TypeA))
	}
	// A header that promises a question the message lacks: miekg/dns
	// answers FORMERR before the handler sees it.
	co, err := net.Dial("udp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer co.Close()
	if _, err := co.Write([]byte{0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if err := co.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 512)
	n, err := co.Read(buf)
	if err != nil {
		t.Fatalf("no answer to a malformed query: %v", err)
	}
	if r := new(dns.Msg); r.Unpack(buf[:n]) != nil || r.Rcode != dns.RcodeFormatError {
		t.Errorf("answer to a malformed query %v, want FORMERR", r)
	}
	want := map[string]uint64{"NOERROR": 2, "NXDOMAIN": 1, "REFUSED": 1, "FORMERR": 1}
	if diff := cmp.Diff(want, s.Stats()); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
}

// TestClose checks that Close returns with a TCP connection still open,
// frees the port for both transports, and answers the same when repeated.
func TestClose(t *testing.T) {
	s, err := Listen("127.0.0.1:0", exampleSource(t), WithTimeout(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ask(t, "tcp", s.Addr(), new(dns.Msg).SetQuestion("www.example.com.", dns.TypeA))
	idle, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()

	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(10 * time.Second): // a hang guard, far above the 200ms bound
		t.Fatal("Close did not return")
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := net.Dial("tcp", s.Addr()); err == nil {
		t.Error("TCP still accepts after Close")
	}
	tl, err := net.Listen("tcp", s.Addr())
	if err != nil {
		t.Fatalf("TCP port not freed: %v", err)
	}
	tl.Close()
	ul, err := net.ListenPacket("udp", s.Addr())
	if err != nil {
		t.Fatalf("UDP port not freed: %v", err)
	}
	ul.Close()
}

func TestListenSharesOnePort(t *testing.T) {
	s := startServer(t, exampleSource(t))
	_, port, err := net.SplitHostPort(s.Addr())
	if err != nil || port == "0" {
		t.Fatalf("Addr %q: %v", s.Addr(), err)
	}
	for _, network := range transports {
		r, _ := ask(t, network, s.Addr(), new(dns.Msg).SetQuestion("www.example.com.", dns.TypeA))
		if r.Rcode != dns.RcodeSuccess || len(r.Answer) != 2 {
			t.Errorf("%s: rcode %s, %d answers", network, dns.RcodeToString[r.Rcode], len(r.Answer))
		}
	}
}

// TestListenUDPTaken checks that a fixed port whose UDP side is taken fails
// and leaves the TCP side free.
func TestListenUDPTaken(t *testing.T) {
	ul, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	addr := ul.LocalAddr().String()
	s, err := Listen(addr, exampleSource(t))
	if err == nil {
		s.Close()
		t.Fatalf("Listen on %s with its UDP port taken succeeded", addr)
	}
	var opErr *net.OpError
	if !errors.As(err, &opErr) || opErr.Net != "udp" {
		t.Errorf("error %v, want the UDP bind's", err)
	}
	tl, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("TCP side of %s left bound: %v", addr, err)
	}
	tl.Close()
}
