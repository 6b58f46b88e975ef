package fakecloud

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

func TestPrimaryIPsFollowServer(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a", Location: &hcloud.Location{Name: "hel1"}})
	only4 := newServer(t, f, hcloud.ServerCreateOpts{Name: "b", PublicNet: &hcloud.ServerCreatePublicNet{EnableIPv4: true, EnableIPv6: false}})

	pips, err := f.client.PrimaryIP.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Type       hcloud.PrimaryIPType
		IP         string
		Assignee   int64
		AssignType string
		AutoDelete bool
		Location   string
	}
	var got []row
	for _, p := range pips {
		ip := p.IP.String()
		if p.Type == hcloud.PrimaryIPTypeIPv6 && p.Network != nil {
			ip = p.Network.String()
		}
		loc := ""
		if p.Location != nil {
			loc = p.Location.Name
		}
		got = append(got, row{p.Type, ip, p.AssigneeID, p.AssigneeType, p.AutoDelete, loc})
	}
	want := []row{
		{hcloud.PrimaryIPTypeIPv4, s.PublicNet.IPv4.IP.String(), s.ID, "server", true, "hel1"},
		{hcloud.PrimaryIPTypeIPv6, s.PublicNet.IPv6.Network.String(), s.ID, "server", true, "hel1"},
		{hcloud.PrimaryIPTypeIPv4, only4.PublicNet.IPv4.IP.String(), only4.ID, "server", true, "fsn1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("primary IPs (-want +got):\n%s", diff)
	}
	if pips[0].ID != s.PublicNet.IPv4.ID || pips[1].ID != s.PublicNet.IPv6.ID {
		t.Errorf("primary IP IDs %d %d, server public_net names %d %d", pips[0].ID, pips[1].ID, s.PublicNet.IPv4.ID, s.PublicNet.IPv6.ID)
	}
	if ptr, err := pips[0].GetDNSPtrForIP(pips[0].IP); err != nil || ptr == "" {
		t.Errorf("IPv4 primary IP has no reverse DNS: %q %v", ptr, err)
	}

	byID, _, err := f.client.PrimaryIP.GetByID(ctx, pips[0].ID)
	if err != nil || byID == nil || !byID.IP.Equal(s.PublicNet.IPv4.IP) {
		t.Errorf("GetByID: %v %v", byID, err)
	}
	byIP, _, err := f.client.PrimaryIP.GetByIP(ctx, only4.PublicNet.IPv4.IP.String())
	if err != nil || byIP == nil || byIP.AssigneeID != only4.ID {
		t.Errorf("GetByIP: %v %v", byIP, err)
	}
	// An IPv6 primary IP is found by its network's address, as hcloud-go
	// shows it, or by its network; not by another address inside it.
	netAddr := s.PublicNet.IPv6.Network.IP.String()
	for query, want := range map[string]int64{netAddr: pips[1].ID, s.PublicNet.IPv6.Network.String(): pips[1].ID, netAddr + "1": 0} {
		resp, body := f.do(t, "GET", "/v1/primary_ips?ip="+url.QueryEscape(query), "")
		var page struct {
			PrimaryIPs []struct{ ID int64 } `json:"primary_ips"`
		}
		decode(t, body, &page)
		var ids []int64
		for _, p := range page.PrimaryIPs {
			ids = append(ids, p.ID)
		}
		if resp.StatusCode != http.StatusOK || (want == 0) != (len(ids) == 0) || (want != 0 && (len(ids) != 1 || ids[0] != want)) {
			t.Errorf("?ip=%s: %d %v, want %d", query, resp.StatusCode, ids, want)
		}
	}
	byName, _, err := f.client.PrimaryIP.GetByName(ctx, pips[1].Name)
	if err != nil || byName == nil || byName.ID != pips[1].ID {
		t.Errorf("GetByName(%q): %v %v", pips[1].Name, byName, err)
	}
	sorted, err := f.client.PrimaryIP.AllWithOpts(ctx, hcloud.PrimaryIPListOpts{Sort: []string{"id:desc"}})
	if err != nil || len(sorted) != 3 || sorted[0].ID != pips[2].ID {
		t.Errorf("sort id:desc: %d %v", len(sorted), err)
	}

	res, _, err := f.client.Server.DeleteWithResult(ctx, s)
	if err != nil || f.client.Action.WaitFor(ctx, res.Action) != nil {
		t.Fatalf("delete server: %v", err)
	}
	left, err := f.client.PrimaryIP.All(ctx)
	if err != nil || len(left) != 1 || left[0].AssigneeID != only4.ID {
		t.Fatalf("after delete: %v %v, want only server b's IPv4", left, err)
	}
	for _, id := range []int64{pips[0].ID, pips[1].ID} {
		if gone, _, err := f.client.PrimaryIP.GetByID(ctx, id); gone != nil || err != nil {
			t.Errorf("primary IP %d survives its server: %v %v", id, gone, err)
		}
	}
	gone, _, err := f.client.PrimaryIP.GetByIP(ctx, s.PublicNet.IPv4.IP.String())
	if err != nil || gone != nil {
		t.Errorf("GetByIP of the deleted server's address: %v %v", gone, err)
	}
}
