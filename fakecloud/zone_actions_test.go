package fakecloud

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// zoneState is what a zone shows through the API, its serial aside: the
// zone and every RRSet.
func zoneState(t *testing.T, f *fixture, name string) (string, uint64) {
	t.Helper()
	_, zbody := f.do(t, "GET", "/v1/zones/"+name, "")
	var z struct {
		Zone map[string]any `json:"zone"`
	}
	if err := json.Unmarshal(zbody, &z); err != nil {
		t.Fatal(err)
	}
	_, rbody := f.do(t, "GET", "/v1/zones/"+name+"/rrsets?per_page=100&sort=id", "")
	var r struct {
		RRSets []map[string]any `json:"rrsets"`
	}
	if err := json.Unmarshal(rbody, &r); err != nil {
		t.Fatal(err)
	}
	var serial uint64
	for _, set := range r.RRSets {
		if set["type"] == "SOA" {
			records := set["records"].([]any)
			fields := strings.Fields(records[0].(map[string]any)["value"].(string))
			serial = mustUint(t, fields[2])
			fields[2] = "S"
			records[0].(map[string]any)["value"] = strings.Join(fields, " ")
		}
	}
	return string(mustJSON(t, map[string]any{"zone": z.Zone, "rrsets": r.RRSets})), serial
}

func mustUint(t *testing.T, s string) uint64 {
	var n uint64
	if err := json.Unmarshal([]byte(s), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestZoneActionFailuresUndo: every zone and RRSet action that fails
// leaves the zone as it was, and moves its serial past the one the
// failed change published.
func TestZoneActionFailuresUndo(t *testing.T) {
	www := &hcloud.ZoneRRSet{Name: "www", Type: "A"}
	on := true
	zonefile := "$TTL 600\n@ IN SOA hydrogen.ns.hetzner.com. dns.hetzner.com. 1 86400 10800 3600000 3600\n" +
		"@ IN NS hydrogen.ns.hetzner.com.\n@ IN NS oxygen.ns.hetzner.com.\n@ IN NS helium.ns.hetzner.de.\nmail IN A 201.42.91.50\n"
	for command, run := range map[string]func(ctx context.Context, c *hcloud.Client, z *hcloud.Zone) (*hcloud.Action, error){
		"change_protection": func(ctx context.Context, c *hcloud.Client, z *hcloud.Zone) (*hcloud.Action, error) {
			a, _, err := c.Zone.ChangeProtection(ctx, z, hcloud.ZoneChangeProtectionOpts{Delete: &on})
			return a, err
		},
		"change_ttl": func(ctx context.Context, c *hcloud.Client, z *hcloud.Zone) (*hcloud.Action, error) {
			a, _, err := c.Zone.ChangeTTL(ctx, z, hcloud.ZoneChangeTTLOpts{TTL: 60})
			return a, err
		},
		"import_zonefile": func(ctx context.Context, c *hcloud.Client, z *hcloud.Zone) (*hcloud.Action, error) {
			a, _, err := c.Zone.ImportZonefile(ctx, z, hcloud.ZoneImportZonefileOpts{Zonefile: zonefile})
			return a, err
		},
		"create_rrset": func(ctx context.Context, c *hcloud.Client, z *hcloud.Zone) (*hcloud.Action, error) {
			res, _, err := c.Zone.CreateRRSet(ctx, z, hcloud.ZoneRRSetCreateOpts{Name: "api", Type: "AAAA", Records: []hcloud.ZoneRRSetRecord{{Value: "2001:db8::1"}}})
			return res.Action, err
		},
		"delete_rrset": func(ctx context.Context, c *hcloud.Client, z *hcloud.Zone) (*hcloud.Action, error) {
			www.Zone = z
			res, _, err := c.Zone.DeleteRRSet(ctx, www)
			return res.Action, err
		},
		"change_rrset_protection": func(ctx context.Context, c *hcloud.Client, z *hcloud.Zone) (*hcloud.Action, error) {
			www.Zone = z
			a, _, err := c.Zone.ChangeRRSetProtection(ctx, www, hcloud.ZoneRRSetChangeProtectionOpts{Change: &on})
			return a, err
		},
		"change_rrset_ttl": func(ctx context.Context, c *hcloud.Client, z *hcloud.Zone) (*hcloud.Action, error) {
			www.Zone = z
			a, _, err := c.Zone.ChangeRRSetTTL(ctx, www, hcloud.ZoneRRSetChangeTTLOpts{TTL: new(120)})
			return a, err
		},
		"set_rrset_records": func(ctx context.Context, c *hcloud.Client, z *hcloud.Zone) (*hcloud.Action, error) {
			www.Zone = z
			a, _, err := c.Zone.SetRRSetRecords(ctx, www, hcloud.ZoneRRSetSetRecordsOpts{Records: []hcloud.ZoneRRSetRecord{{Value: "201.42.91.99"}}})
			return a, err
		},
		"add_rrset_records": func(ctx context.Context, c *hcloud.Client, z *hcloud.Zone) (*hcloud.Action, error) {
			www.Zone = z
			a, _, err := c.Zone.AddRRSetRecords(ctx, www, hcloud.ZoneRRSetAddRecordsOpts{Records: []hcloud.ZoneRRSetRecord{{Value: "201.42.91.99"}}})
			return a, err
		},
		"remove_rrset_records": func(ctx context.Context, c *hcloud.Client, z *hcloud.Zone) (*hcloud.Action, error) {
			www.Zone = z
			a, _, err := c.Zone.RemoveRRSetRecords(ctx, www, hcloud.ZoneRRSetRemoveRecordsOpts{Records: []hcloud.ZoneRRSetRecord{{Value: "201.42.91.35"}}})
			return a, err
		},
		"update_rrset_records": func(ctx context.Context, c *hcloud.Client, z *hcloud.Zone) (*hcloud.Action, error) {
			www.Zone = z
			a, _, err := c.Zone.UpdateRRSetRecords(ctx, www, hcloud.ZoneRRSetUpdateRecordsOpts{Records: []hcloud.ZoneRRSetRecord{{Value: "201.42.91.35", Comment: "new"}}})
			return a, err
		},
	} {
		t.Run(command, func(t *testing.T) {
			f := newFixture(t, Options{})
			ctx := t.Context()
			res, _, err := f.client.Zone.Create(ctx, hcloud.ZoneCreateOpts{Name: "example.com", Mode: hcloud.ZoneModePrimary,
				RRSets: []hcloud.ZoneCreateOptsRRSet{{Name: "www", Type: "A", Records: []hcloud.ZoneRRSetRecord{{Value: "201.42.91.35"}, {Value: "201.42.91.36"}}}}})
			f.waitAction(t, res.Action, err)
			before, serial := zoneState(t, f, "example.com")
			if _, err := f.fc.AddActionFault(ActionFault{Command: command, Count: 1, ErrorCode: "action_failed"}); err != nil {
				t.Fatal(err)
			}
			a, err := run(ctx, f.client, res.Zone)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.client.Action.WaitFor(ctx, a); err == nil || a.Command != command {
				t.Fatalf("%s ended without an error (%v)", a.Command, err)
			}
			after, moved := zoneState(t, f, "example.com")
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("a failed %s changed the zone (-before +after):\n%s", command, diff)
			}
			if moved <= serial {
				t.Errorf("serial %d after the failed %s, %d before: want it moved on", moved, command, serial)
			}
		})
	}
}

// TestRRSetActionsSideBySide: two RRSets of one zone change at once (a
// DNS-01 solver's two challenges); the one that fails takes back its own
// change alone.
func TestRRSetActionsSideBySide(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{Now: clock.Now})
	ctx := t.Context()
	z := newZone(t, f, "example.com")
	if _, err := f.fc.AddActionFault(ActionFault{Command: "add_rrset_records", Count: 1, ErrorCode: "action_failed", Delay: Duration(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	first, _, err := f.client.Zone.AddRRSetRecords(ctx, &hcloud.ZoneRRSet{Zone: z, Name: "_acme-challenge", Type: "TXT"},
		hcloud.ZoneRRSetAddRecordsOpts{Records: []hcloud.ZoneRRSetRecord{{Value: `"one"`}}})
	if err != nil {
		t.Fatal(err)
	}
	second, _, err := f.client.Zone.AddRRSetRecords(ctx, &hcloud.ZoneRRSet{Zone: z, Name: "_acme-challenge.www", Type: "TXT"},
		hcloud.ZoneRRSetAddRecordsOpts{Records: []hcloud.ZoneRRSetRecord{{Value: `"two"`}}})
	if err != nil {
		t.Fatalf("a second RRSet's add_records while the first runs: %v", err)
	}
	f.waitAction(t, second, nil)
	clock.Advance(time.Minute)
	if got, _, _ := f.client.Action.GetByID(ctx, first.ID); got.Status != hcloud.ActionStatusError {
		t.Fatalf("first add_records %+v, want error", got)
	}
	if r := zoneRRSet(t, f, z, "_acme-challenge", "TXT"); r != nil {
		t.Errorf("the failed add_records's RRSet is still there: %+v", r)
	}
	if r := zoneRRSet(t, f, z, "_acme-challenge.www", "TXT"); r == nil || len(r.Records) != 1 {
		t.Errorf("the other RRSet, added meanwhile: %+v, want it kept", r)
	}
}

// TestFailedZoneCreateLeavesNoZone: a create_zone that fails takes its
// zone away.
func TestFailedZoneCreateLeavesNoZone(t *testing.T) {
	f := newFixture(t, Options{})
	if _, err := f.fc.AddActionFault(ActionFault{Command: "create_zone", Count: 1, ErrorCode: "action_failed"}); err != nil {
		t.Fatal(err)
	}
	res, _, err := f.client.Zone.Create(t.Context(), hcloud.ZoneCreateOpts{Name: "example.com", Mode: hcloud.ZoneModePrimary})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.client.Action.WaitFor(t.Context(), res.Action); err == nil {
		t.Fatal("create_zone ended without an error")
	}
	if z, _, err := f.client.Zone.GetByName(t.Context(), "example.com"); err != nil || z != nil {
		t.Errorf("after a failed create_zone: %+v, %v", z, err)
	}
}
