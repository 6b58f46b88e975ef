package fakecloud

import (
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/miekg/dns"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// ask sends one query over a transport ("udp" or "tcp").
func ask(t *testing.T, addr, net, name string, qtype uint16) *dns.Msg {
	t.Helper()
	c := &dns.Client{Net: net, Timeout: 2 * time.Second}
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	in, _, err := c.Exchange(m, addr)
	if err != nil {
		t.Fatalf("%s %s over %s: %v", name, dns.TypeToString[qtype], net, err)
	}
	return in
}

// nameserver starts fakecloud's nameserver beside a fixture's API.
func nameserver(t *testing.T, f *fixture) *DNSServer {
	t.Helper()
	ns, err := f.fc.ListenDNS("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ns.Close() })
	return ns
}

// serialOf is the SOA serial a nameserver answers for a zone.
func serialOf(t *testing.T, addr, zone string) uint32 {
	t.Helper()
	in := ask(t, addr, "udp", zone, dns.TypeSOA)
	if len(in.Answer) != 1 {
		t.Fatalf("SOA of %s: %v", zone, in)
	}
	return in.Answer[0].(*dns.SOA).Serial
}

func TestDNSAnswersWhatTheAPIWrote(t *testing.T) {
	f := newFixture(t, Options{})
	ns := nameserver(t, f)
	ctx := t.Context()
	z := newZone(t, f, "example.com")
	before := serialOf(t, ns.Addr(), "example.com")
	res, _, err := f.client.Zone.CreateRRSet(ctx, z, hcloud.ZoneRRSetCreateOpts{Name: "www", Type: "A", TTL: new(300),
		Records: []hcloud.ZoneRRSetRecord{{Value: "201.42.91.35"}}})
	if err != nil {
		t.Fatal(err)
	}
	f.waitAction(t, res.Action, nil)
	for _, net := range []string{"udp", "tcp"} {
		in := ask(t, ns.Addr(), net, "www.example.com", dns.TypeA)
		if in.Rcode != dns.RcodeSuccess || !in.Authoritative || len(in.Answer) != 1 {
			t.Fatalf("www.example.com A over %s: %v", net, in)
		}
		if a := in.Answer[0].(*dns.A); a.A.String() != "201.42.91.35" || a.Hdr.Ttl != 300 {
			t.Errorf("over %s: %v, want 201.42.91.35 with TTL 300", net, a)
		}
	}
	if after := serialOf(t, ns.Addr(), "example.com"); after <= before {
		t.Errorf("serial %d after a write, %d before: want it larger", after, before)
	}
	if in := ask(t, ns.Addr(), "udp", "example.com", dns.TypeNS); len(in.Answer) != 3 {
		t.Errorf("apex NS: %v, want the 3 assigned nameservers", in.Answer)
	}
	if in := ask(t, ns.Addr(), "udp", "nope.example.com", dns.TypeA); in.Rcode != dns.RcodeNameError || len(in.Ns) != 1 {
		t.Errorf("a missing name: %v, want NXDOMAIN with the SOA", in)
	}
	if in := ask(t, ns.Addr(), "udp", "example.net", dns.TypeA); in.Rcode != dns.RcodeRefused {
		t.Errorf("a name in no zone: rcode %s, want REFUSED", dns.RcodeToString[in.Rcode])
	}

	// A record goes as soon as the API deletes it.
	del, _, err := f.client.Zone.DeleteRRSet(ctx, res.RRSet)
	f.waitAction(t, del.Action, err)
	if in := ask(t, ns.Addr(), "udp", "www.example.com", dns.TypeA); in.Rcode != dns.RcodeNameError {
		t.Errorf("a deleted RRSet: %v, want NXDOMAIN", in)
	}
	if got := ns.Answered()["NOERROR"]; got == 0 {
		t.Errorf("answers counted: %v", ns.Answered())
	}
}

func TestDNSServesEveryProject(t *testing.T) {
	f := newFixture(t, Options{Projects: map[string][]string{"other": {"other-token"}}})
	ns := nameserver(t, f)
	other := hcloud.NewClient(hcloud.WithEndpoint(f.url+"/v1"), hcloud.WithToken("other-token"), hcloud.WithPollOpts(hcloud.PollOpts{BackoffFunc: hcloud.ConstantBackoff(0)}))
	res, _, err := other.Zone.Create(t.Context(), hcloud.ZoneCreateOpts{Name: "example.org", Mode: hcloud.ZoneModePrimary,
		RRSets: []hcloud.ZoneCreateOptsRRSet{{Name: "api", Type: "AAAA", Records: []hcloud.ZoneRRSetRecord{{Value: "2001:db8::1"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Action.WaitFor(t.Context(), res.Action); err != nil {
		t.Fatal(err)
	}
	if in := ask(t, ns.Addr(), "udp", "api.example.org", dns.TypeAAAA); len(in.Answer) != 1 {
		t.Errorf("a further project's record: %v", in)
	}
}

func TestDNSLagsUnderPessimisticRealism(t *testing.T) {
	clock := fakecloudtest.NewClock(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	f := newFixture(t, Options{Now: clock.Now, Realism: Realism{Mode: RealismPessimistic}})
	ns := nameserver(t, f)
	z := newZone(t, f, "example.com")
	if in := ask(t, ns.Addr(), "udp", "www.example.com", dns.TypeA); in.Rcode != dns.RcodeNameError {
		t.Fatalf("before the write: %v", in)
	}
	a, _, err := f.client.Zone.AddRRSetRecords(t.Context(), &hcloud.ZoneRRSet{Zone: z, Name: "www", Type: "A"},
		hcloud.ZoneRRSetAddRecordsOpts{Records: []hcloud.ZoneRRSetRecord{{Value: "201.42.91.35"}}})
	f.waitAction(t, a, err)
	if in := ask(t, ns.Addr(), "udp", "www.example.com", dns.TypeA); in.Rcode != dns.RcodeNameError {
		t.Errorf("at once: %v, want the answer of before the write", in)
	}
	clock.Advance(DNSLagPessimistic)
	if in := ask(t, ns.Addr(), "udp", "www.example.com", dns.TypeA); len(in.Answer) != 1 {
		t.Errorf("after %s: %v, want the record", DNSLagPessimistic, in)
	}
}

// TestDNSFollowsZoneStatus: a zone whose publishing is stuck keeps being
// served as it was; one whose publishing failed answers SERVFAIL.
func TestDNSFollowsZoneStatus(t *testing.T) {
	f := newFixture(t, Options{})
	ns := nameserver(t, f)
	ctx := t.Context()
	z := newZone(t, f, "example.com")
	rs := &hcloud.ZoneRRSet{Zone: z, Name: "www", Type: "A"}
	a, _, err := f.client.Zone.AddRRSetRecords(ctx, rs, hcloud.ZoneRRSetAddRecordsOpts{Records: []hcloud.ZoneRRSetRecord{{Value: "201.42.91.35"}}})
	f.waitAction(t, a, err)
	if err := f.fc.Apply(Event{Type: "set_zone_status", ZoneName: "example.com", Status: "updating"}); err != nil {
		t.Fatal(err)
	}
	a, _, err = f.client.Zone.SetRRSetRecords(ctx, rs, hcloud.ZoneRRSetSetRecordsOpts{Records: []hcloud.ZoneRRSetRecord{{Value: "201.42.91.36"}}})
	f.waitAction(t, a, err)
	if got, _, _ := f.client.Zone.GetByID(ctx, z.ID); got.Status != hcloud.ZoneStatusUpdating {
		t.Errorf("zone status %q, want updating", got.Status)
	}
	if in := ask(t, ns.Addr(), "udp", "www.example.com", dns.TypeA); len(in.Answer) != 1 || in.Answer[0].(*dns.A).A.String() != "201.42.91.35" {
		t.Errorf("while updating: %v, want the record as it was", in.Answer)
	}
	if err := f.fc.Apply(Event{Type: "set_zone_status", Zone: z.ID, Status: "error"}); err != nil {
		t.Fatal(err)
	}
	if in := ask(t, ns.Addr(), "udp", "www.example.com", dns.TypeA); in.Rcode != dns.RcodeServerFailure {
		t.Errorf("after a failed publish: rcode %s, want SERVFAIL", dns.RcodeToString[in.Rcode])
	}
	if err := f.fc.Apply(Event{Type: "set_zone_status", Zone: z.ID, Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	if in := ask(t, ns.Addr(), "udp", "www.example.com", dns.TypeA); len(in.Answer) != 1 || in.Answer[0].(*dns.A).A.String() != "201.42.91.36" {
		t.Errorf("published again: %v, want the API's record", in.Answer)
	}
	for _, bad := range []Event{
		{Type: "set_zone_status", Status: "ok"},
		{Type: "set_zone_status", ZoneName: "example.com", Status: "broken"},
		{Type: "set_zone_status", ZoneName: "example.net", Status: "ok"},
	} {
		if err := f.fc.Apply(bad); err == nil {
			t.Errorf("event %+v accepted", bad)
		}
	}
}

// TestDNSFollowsAFailedChange: records a change wrote are answered while
// its action runs, and go when it fails, with nothing else asked of the
// API; answers between changes come from one rendering of the zone.
func TestDNSFollowsAFailedChange(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{Now: clock.Now})
	ns := nameserver(t, f)
	z := newZone(t, f, "example.com")
	if _, err := f.fc.AddActionFault(ActionFault{Command: "add_rrset_records", Count: 1, ErrorCode: "action_failed", Delay: Duration(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.client.Zone.AddRRSetRecords(t.Context(), &hcloud.ZoneRRSet{Zone: z, Name: "_acme-challenge", Type: "TXT"},
		hcloud.ZoneRRSetAddRecordsOpts{Records: []hcloud.ZoneRRSetRecord{{Value: `"token"`}}}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if in := ask(t, ns.Addr(), "udp", "_acme-challenge.example.com", dns.TypeTXT); len(in.Answer) != 1 {
			t.Fatalf("while the change runs: %v, want its TXT", in)
		}
	}
	clock.Advance(time.Minute)
	if in := ask(t, ns.Addr(), "udp", "_acme-challenge.example.com", dns.TypeTXT); in.Rcode != dns.RcodeNameError {
		t.Errorf("after the change failed: %v, want NXDOMAIN", in)
	}
}
