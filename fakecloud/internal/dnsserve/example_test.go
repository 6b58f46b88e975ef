package dnsserve_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/miekg/dns"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/dnsserve"
)

// Serve one zone on a free loopback port and ask it over UDP.
func Example() {
	var records []dns.RR
	for _, l := range []string{
		"example.com. 3600 IN SOA ns1.example.com. hostmaster.example.com. 1 7200 900 1209600 300",
		"example.com. 3600 IN NS ns1.example.com.",
		"www.example.com. 300 IN A 192.0.2.10",
	} {
		rr, err := dns.NewRR(l)
		if err != nil {
			panic(err)
		}
		records = append(records, rr)
	}
	zone := dnsserve.Zone{Origin: "example.com.", Records: records}
	src := func(name string) (dnsserve.Zone, bool) {
		return zone, dns.IsSubDomain(zone.Origin, name)
	}

	s, err := dnsserve.Listen("127.0.0.1:0", src)
	if err != nil {
		panic(err)
	}
	defer s.Close()

	c := &dns.Client{Net: "udp", Timeout: 2 * time.Second}
	r, _, err := c.Exchange(new(dns.Msg).SetQuestion("www.example.com.", dns.TypeA), s.Addr())
	if err != nil {
		panic(err)
	}
	fmt.Println(dns.RcodeToString[r.Rcode], r.Authoritative)
	fmt.Println(strings.ReplaceAll(r.Answer[0].String(), "\t", " "))
	// Output:
	// NOERROR true
	// www.example.com. 300 IN A 192.0.2.10
}
