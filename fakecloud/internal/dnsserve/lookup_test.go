package dnsserve

import (
	"fmt"
	"testing"

	"github.com/miekg/dns"
)

func exampleSource(t *testing.T) Source {
	return staticSource(zoneOf(t, "example.com.", exampleZone...))
}

func TestExactAnswers(t *testing.T) {
	runCases(t, exampleSource(t), []qcase{
		{name: "A set", qname: "www.example.com.", qtype: dns.TypeA, aa: true,
			answer: []string{"www.example.com. 300 IN A 192.0.2.10", "www.example.com. 300 IN A 192.0.2.11"}},
		{name: "AAAA", qname: "www.example.com.", qtype: dns.TypeAAAA, aa: true,
			answer: []string{"www.example.com. 300 IN AAAA 2001:db8::10"}},
		{name: "mixed case", qname: "WwW.ExAmPlE.CoM.", qtype: dns.TypeAAAA, aa: true,
			answer: []string{"www.example.com. 300 IN AAAA 2001:db8::10"}},
		{name: "MX", qname: "example.com.", qtype: dns.TypeMX, aa: true,
			answer: []string{"example.com. 3600 IN MX 10 mail.example.com."}},
		{name: "TXT", qname: "example.com.", qtype: dns.TypeTXT, aa: true,
			answer: []string{`example.com. 3600 IN TXT "v=spf1 -all"`}},
		{name: "CAA", qname: "example.com.", qtype: dns.TypeCAA, aa: true,
			answer: []string{`example.com. 3600 IN CAA 0 issue "letsencrypt.org"`}},
		{name: "SRV", qname: "_sip._tcp.example.com.", qtype: dns.TypeSRV, aa: true,
			answer: []string{"_sip._tcp.example.com. 300 IN SRV 10 60 5060 sip.example.com."}},
		{name: "apex NS", qname: "example.com.", qtype: dns.TypeNS, aa: true,
			answer: []string{"example.com. 3600 IN NS ns1.example.com.", "example.com. 3600 IN NS ns2.example.com.",
				"example.com. 3600 IN NS ns3.example.net."}},
		{name: "SOA keeps its own TTL", qname: "example.com.", qtype: dns.TypeSOA, aa: true,
			answer: []string{"example.com. 3600 IN SOA ns1.example.com. hostmaster.example.com. 2024010101 7200 900 1209600 300"}},
		{name: "CNAME asked for itself", qname: "alias.example.com.", qtype: dns.TypeCNAME, aa: true,
			answer: []string{"alias.example.com. 300 IN CNAME alias2.example.com."}},
	})
}

func TestCNAMEChains(t *testing.T) {
	runCases(t, exampleSource(t), []qcase{
		{name: "two steps to data", qname: "alias.example.com.", qtype: dns.TypeA, aa: true,
			answer: []string{"alias.example.com. 300 IN CNAME alias2.example.com.", "alias2.example.com. 300 IN CNAME www.example.com.",
				"www.example.com. 300 IN A 192.0.2.10", "www.example.com. 300 IN A 192.0.2.11"}},
		{name: "target without the type", qname: "alias.example.com.", qtype: dns.TypeMX, aa: true,
			answer: []string{"alias.example.com. 300 IN CNAME alias2.example.com.", "alias2.example.com. 300 IN CNAME www.example.com."},
			ns:     []string{negSOA}},
		{name: "target does not exist", qname: "dangling.example.com.", qtype: dns.TypeA, rcode: dns.RcodeNameError, aa: true,
			answer: []string{"dangling.example.com. 300 IN CNAME nowhere.example.com."}, ns: []string{negSOA}},
		{name: "target in another zone", qname: "outside.example.com.", qtype: dns.TypeA, aa: true,
			answer: []string{"outside.example.com. 300 IN CNAME www.example.org."}},
		{name: "loop stops", qname: "loop1.example.com.", qtype: dns.TypeA, aa: true,
			answer: []string{"loop1.example.com. 300 IN CNAME loop2.example.com.", "loop2.example.com. 300 IN CNAME loop1.example.com."}},
		{name: "target below a delegation", qname: "tosub.example.com.", qtype: dns.TypeA, aa: true,
			answer: []string{"tosub.example.com. 300 IN CNAME host.sub.example.com."},
			ns:     []string{"sub.example.com. 3600 IN NS ns1.sub.example.com.", "sub.example.com. 3600 IN NS ns.example.net."},
			extra:  []string{"ns1.sub.example.com. 3600 IN A 192.0.2.53"}},
	})
}

func TestCNAMEChainIsBounded(t *testing.T) {
	var lines, want []string
	lines = append(lines, exampleZone[0])
	for i := range 10 {
		l := fmt.Sprintf("c%d.example.com. 300 IN CNAME c%d.example.com.", i, i+1)
		lines = append(lines, l)
		if i < maxChain {
			want = append(want, l)
		}
	}
	lines = append(lines, "c10.example.com. 300 IN A 192.0.2.1")
	runCases(t, staticSource(zoneOf(t, "example.com.", lines...)), []qcase{
		{name: "stops after maxChain", qname: "c0.example.com.", qtype: dns.TypeA, aa: true, answer: want},
	})
}

func TestNoData(t *testing.T) {
	runCases(t, exampleSource(t), []qcase{
		{name: "name without the type", qname: "www.example.com.", qtype: dns.TypeMX, aa: true, ns: []string{negSOA}},
		{name: "empty non-terminal", qname: "ent.example.com.", qtype: dns.TypeA, aa: true, ns: []string{negSOA}},
		{name: "deeper empty non-terminal", qname: "B.ent.example.com.", qtype: dns.TypeA, aa: true, ns: []string{negSOA}},
		{name: "empty non-terminal above SRV", qname: "_tcp.example.com.", qtype: dns.TypeSRV, aa: true, ns: []string{negSOA}},
		{name: "DS absent at the apex", qname: "example.com.", qtype: dns.TypeDS, aa: true, ns: []string{negSOA}},
	})
}

func TestNXDomain(t *testing.T) {
	runCases(t, exampleSource(t), []qcase{
		{name: "no such name", qname: "nope.example.com.", qtype: dns.TypeA, rcode: dns.RcodeNameError, aa: true, ns: []string{negSOA}},
		{name: "below a leaf", qname: "x.a.b.ent.example.com.", qtype: dns.TypeA, rcode: dns.RcodeNameError, aa: true, ns: []string{negSOA}},
		{name: "below a CNAME", qname: "x.alias.example.com.", qtype: dns.TypeA, rcode: dns.RcodeNameError, aa: true, ns: []string{negSOA}},
	})
}

// TestNegativeTTL checks RFC 2308 §3: the lesser of the SOA's TTL and its
// MINIMUM field.
func TestNegativeTTL(t *testing.T) {
	low := zoneOf(t, "low.test.", "low.test. 60 IN SOA ns.low.test. h.low.test. 1 2 3 4 300", "low.test. 60 IN NS ns.low.test.")
	high := zoneOf(t, "high.test.", "high.test. 3600 IN SOA ns.high.test. h.high.test. 1 2 3 4 120", "high.test. 60 IN NS ns.high.test.")
	runCases(t, staticSource(low, high), []qcase{
		{name: "SOA TTL below MINIMUM", qname: "x.low.test.", qtype: dns.TypeA, rcode: dns.RcodeNameError, aa: true,
			ns: []string{"low.test. 60 IN SOA ns.low.test. h.low.test. 1 2 3 4 300"}},
		{name: "MINIMUM below SOA TTL", qname: "high.test.", qtype: dns.TypeA, aa: true,
			ns: []string{"high.test. 120 IN SOA ns.high.test. h.high.test. 1 2 3 4 120"}},
	})
}

func TestReferrals(t *testing.T) {
	ns := []string{"sub.example.com. 3600 IN NS ns1.sub.example.com.", "sub.example.com. 3600 IN NS ns.example.net."}
	glue := []string{"ns1.sub.example.com. 3600 IN A 192.0.2.53"}
	runCases(t, exampleSource(t), []qcase{
		{name: "at the cut", qname: "sub.example.com.", qtype: dns.TypeA, ns: ns, extra: glue},
		{name: "NS at the cut", qname: "sub.example.com.", qtype: dns.TypeNS, ns: ns, extra: glue},
		{name: "below the cut", qname: "deep.x.sub.example.com.", qtype: dns.TypeA, ns: ns, extra: glue},
		{name: "glue name itself", qname: "ns1.sub.example.com.", qtype: dns.TypeA, ns: ns, extra: glue},
		{name: "DS below the cut", qname: "x.sub.example.com.", qtype: dns.TypeDS, ns: ns, extra: glue},
		{name: "DS at the cut from the parent", qname: "sub.example.com.", qtype: dns.TypeDS, aa: true,
			answer: []string{"sub.example.com. 3600 IN DS 12345 13 2 2BB183AF5F22588179A53B0A98631FAD1A292118B6A3D9A2F96C2B0F7C3C7A21"}},
	})
}

func TestWildcards(t *testing.T) {
	runCases(t, exampleSource(t), []qcase{
		{name: "synthesized A", qname: "foo.wild.example.com.", qtype: dns.TypeA, aa: true,
			answer: []string{"foo.wild.example.com. 300 IN A 192.0.2.99"}},
		{name: "synthesized TXT", qname: "foo.wild.example.com.", qtype: dns.TypeTXT, aa: true,
			answer: []string{`foo.wild.example.com. 300 IN TXT "wildcard"`}},
		{name: "two labels below", qname: "a.b.wild.example.com.", qtype: dns.TypeA, aa: true,
			answer: []string{"a.b.wild.example.com. 300 IN A 192.0.2.99"}},
		{name: "wildcard without the type", qname: "foo.wild.example.com.", qtype: dns.TypeMX, aa: true, ns: []string{negSOA}},
		{name: "existing name wins", qname: "host.wild.example.com.", qtype: dns.TypeA, aa: true,
			answer: []string{"host.wild.example.com. 300 IN A 192.0.2.98"}},
		{name: "existing name blocks it", qname: "host.wild.example.com.", qtype: dns.TypeTXT, aa: true, ns: []string{negSOA}},
		{name: "the wildcard itself", qname: "*.wild.example.com.", qtype: dns.TypeA, aa: true,
			answer: []string{"*.wild.example.com. 300 IN A 192.0.2.99"}},
		{name: "wildcard CNAME", qname: "x.cwild.example.com.", qtype: dns.TypeA, aa: true,
			answer: []string{"x.cwild.example.com. 300 IN CNAME www.example.com.",
				"www.example.com. 300 IN A 192.0.2.10", "www.example.com. 300 IN A 192.0.2.11"}},
		{name: "not at the wildcard's level", qname: "foo.example.com.", qtype: dns.TypeA, rcode: dns.RcodeNameError, aa: true,
			ns: []string{negSOA}},
	})
}

func TestANY(t *testing.T) {
	runCases(t, exampleSource(t), []qcase{
		{name: "every RRset at the name", qname: "www.example.com.", qtype: dns.TypeANY, aa: true,
			answer: []string{"www.example.com. 300 IN A 192.0.2.10", "www.example.com. 300 IN A 192.0.2.11",
				"www.example.com. 300 IN AAAA 2001:db8::10"}},
		{name: "CNAME not followed", qname: "alias.example.com.", qtype: dns.TypeANY, aa: true,
			answer: []string{"alias.example.com. 300 IN CNAME alias2.example.com."}},
		{name: "wildcard", qname: "foo.wild.example.com.", qtype: dns.TypeANY, aa: true,
			answer: []string{"foo.wild.example.com. 300 IN A 192.0.2.99", `foo.wild.example.com. 300 IN TXT "wildcard"`}},
		{name: "empty non-terminal", qname: "ent.example.com.", qtype: dns.TypeANY, aa: true, ns: []string{negSOA}},
		{name: "no such name", qname: "nope.example.com.", qtype: dns.TypeANY, rcode: dns.RcodeNameError, aa: true, ns: []string{negSOA}},
	})
}
