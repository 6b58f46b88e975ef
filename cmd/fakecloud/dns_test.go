package main

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/miekg/dns"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// TestRunServesDNS: with --dns-listen, a record written through the API
// resolves at the address the log names.
func TestRunServesDNS(t *testing.T) {
	var logs lockedBuffer
	ready, done, _ := startRun(t, []string{"--listen", "127.0.0.1:0", "--dns-listen", "127.0.0.1:0", "--action-duration", "0s"}, nil, &logs)
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("run returned before ready: %v\n%s", err, logs.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("not ready within 30s\n%s", logs.String())
	}
	m := regexp.MustCompile(`serving DNS for the primary zones" addr=(\S+)`).FindStringSubmatch(logs.String())
	if m == nil {
		t.Fatalf("no DNS address logged:\n%s", logs.String())
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	client := hcloud.NewClient(hcloud.WithEndpoint("http://"+addr+"/v1"), hcloud.WithToken(fakecloud.DefaultToken))
	if _, _, err := client.Zone.Create(ctx, hcloud.ZoneCreateOpts{Name: "example.com", Mode: hcloud.ZoneModePrimary,
		RRSets: []hcloud.ZoneCreateOptsRRSet{{Name: "www", Type: "A", Records: []hcloud.ZoneRRSetRecord{{Value: "201.42.91.35"}}}}}); err != nil {
		t.Fatal(err)
	}
	q := new(dns.Msg)
	q.SetQuestion("www.example.com.", dns.TypeA)
	in, _, err := (&dns.Client{Timeout: 2 * time.Second}).Exchange(q, m[1])
	if err != nil || len(in.Answer) != 1 || in.Answer[0].(*dns.A).A.String() != "201.42.91.35" {
		t.Fatalf("www.example.com A at %s: %v, %v", m[1], in, err)
	}
}

func TestRunRefusesATakenDNSAddress(t *testing.T) {
	ns, err := fakecloud.New(fakecloud.Options{}).ListenDNS("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Close()
	_, done, _ := startRun(t, []string{"--listen", "127.0.0.1:0", "--dns-listen", ns.Addr()}, nil, &lockedBuffer{})
	select {
	case err := <-done:
		if err == nil || !regexp.MustCompile(`dns-listen`).MatchString(err.Error()) {
			t.Errorf("a taken DNS address: %v, want a dns-listen error", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not fail within 30s")
	}
}
