// Package lego runs lego's Hetzner DNS-01 provider, unmodified, against
// fakecloud: the ACME client a cluster's certificate tooling embeds
// (Traefik, Caddy's and cert-manager's Hetzner solvers work the same
// way). It writes the challenge through the Cloud API's RRSet actions and
// finds the zone and checks propagation over DNS, both at fakecloud's
// nameserver. make peers runs it; it is its own module, so lego's
// dependencies stay out of the project's.
package lego

import (
	"context"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/go-acme/lego/v5/challenge/dns01"
	"github.com/go-acme/lego/v5/providers/dns/hetzner"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/miekg/dns"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// toFakecloud sends the provider's requests for api.hetzner.cloud, its
// fixed endpoint, to fakecloud.
type toFakecloud struct{ base *url.URL }

func (t toFakecloud) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host = t.base.Scheme, t.base.Host
	r.Host = t.base.Host
	return http.DefaultTransport.RoundTrip(r)
}

// txt is what fakecloud's nameserver answers for a TXT name.
func txt(t *testing.T, ns, name string) (int, []string) {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), dns.TypeTXT)
	in, _, err := (&dns.Client{Timeout: 2 * time.Second}).Exchange(m, ns)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, rr := range in.Answer {
		if r, ok := rr.(*dns.TXT); ok {
			out = append(out, r.Txt...)
		}
	}
	return in.Rcode, out
}

func TestLegoHetznerDNS01(t *testing.T) {
	fc := fakecloud.New(fakecloud.Options{ActionDuration: 200 * time.Millisecond})
	endpoint := fakecloudtest.Serve(t, fc)
	ns, err := fc.ListenDNS("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ns.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	client := fakecloudtest.Client(endpoint, fakecloud.DefaultToken)
	res, _, err := client.Zone.Create(ctx, hcloud.ZoneCreateOpts{Name: "example.com", Mode: hcloud.ZoneModePrimary})
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Action.WaitFor(ctx, res.Action); err != nil {
		t.Fatal(err)
	}

	// lego finds the zone by SOA queries and checks propagation at the
	// recursive nameservers it is given: fakecloud's.
	dns01.SetDefaultClient(dns01.NewClient(&dns01.Options{RecursiveNameservers: []string{ns.Addr()}, Timeout: 2 * time.Second}))
	base, _ := url.Parse(endpoint)
	provider, err := hetzner.NewDNSProviderConfig(&hetzner.Config{APIToken: fakecloud.DefaultToken, TTL: 60,
		PropagationTimeout: 30 * time.Second, PollingInterval: 100 * time.Millisecond,
		HTTPClient: &http.Client{Transport: toFakecloud{base}, Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}

	// A certificate for the apex and its wildcard: two authorisations of
	// example.com (ACME names a wildcard's without "*."), so two
	// challenges in one RRSet, presented at once.
	domains := []string{"example.com", "example.com"}
	keyAuths := []string{"key-auth-apex", "key-auth-wildcard"}
	var wg sync.WaitGroup
	errs := make([]error, len(domains))
	for i := range domains {
		wg.Go(func() { errs[i] = provider.Present(ctx, domains[i], "token", keyAuths[i]) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Present %s: %v", domains[i], err)
		}
	}
	var want []string
	for i := range domains {
		want = append(want, dns01.GetChallengeInfo(ctx, domains[i], keyAuths[i]).Value)
	}
	_, got := txt(t, ns.Addr(), "_acme-challenge.example.com")
	if len(got) != 2 || !(got[0] == want[0] && got[1] == want[1] || got[0] == want[1] && got[1] == want[0]) {
		t.Fatalf("the challenge TXT records %q, want %q", got, want)
	}
	// lego found the zone by its SOA at fakecloud's nameserver.
	if zone, err := dns01.DefaultClient().FindZoneByFqdn(ctx, "_acme-challenge.www.example.com."); err != nil || zone != "example.com." {
		t.Errorf("lego's zone of _acme-challenge.www.example.com: %q, %v", zone, err)
	}
	for i := range domains {
		if err := provider.CleanUp(ctx, domains[i], "token", keyAuths[i]); err != nil {
			t.Fatalf("CleanUp %s: %v", domains[i], err)
		}
	}
	if rcode, got := txt(t, ns.Addr(), "_acme-challenge.example.com"); rcode != dns.RcodeNameError || len(got) != 0 {
		t.Errorf("after CleanUp: %s %q, want NXDOMAIN", dns.RcodeToString[rcode], got)
	}
}
