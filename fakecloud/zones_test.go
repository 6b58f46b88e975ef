package fakecloud

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// newZone creates a primary zone and waits for its action.
func newZone(t *testing.T, f *fixture, name string) *hcloud.Zone {
	t.Helper()
	res, _, err := f.client.Zone.Create(t.Context(), hcloud.ZoneCreateOpts{Name: name, Mode: hcloud.ZoneModePrimary})
	if err != nil {
		t.Fatal(err)
	}
	f.waitAction(t, res.Action, nil)
	return res.Zone
}

// zoneRRSet reads an RRSet, nil when the zone has none of the name and type.
func zoneRRSet(t *testing.T, f *fixture, zone *hcloud.Zone, name string, typ hcloud.ZoneRRSetType) *hcloud.ZoneRRSet {
	t.Helper()
	r, _, err := f.client.Zone.GetRRSetByNameAndType(t.Context(), zone, name, typ)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// values are an RRSet's record values, sorted.
func values(r *hcloud.ZoneRRSet) []string {
	var out []string
	for _, rec := range r.Records {
		out = append(out, rec.Value)
	}
	slices.Sort(out)
	return out
}

// wantCodeOf fails unless err is an API error with the code.
func wantCodeOf(t *testing.T, what string, err error, code hcloud.ErrorCode) {
	t.Helper()
	if !hcloud.IsError(err, code) {
		t.Errorf("%s: %v, want %s", what, err, code)
	}
}

func TestZoneLifecycle(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	ttl := 10800
	res, _, err := f.client.Zone.Create(ctx, hcloud.ZoneCreateOpts{Name: "example.com", Mode: hcloud.ZoneModePrimary, TTL: &ttl, Labels: map[string]string{"env": "prod"}})
	if err != nil {
		t.Fatal(err)
	}
	f.waitAction(t, res.Action, nil)
	z := res.Zone
	if res.Action.Command != "create_zone" || z.Name != "example.com" || z.Mode != hcloud.ZoneModePrimary || z.TTL != 10800 || z.RecordCount != 4 ||
		z.Status != hcloud.ZoneStatusOk || len(z.AuthoritativeNameservers.Assigned) != 3 || z.Registrar != hcloud.ZoneRegistrarUnknown || len(z.PrimaryNameservers) != 0 {
		t.Errorf("created %+v (action %s), want a primary zone with its SOA and 3 NS records", z, res.Action.Command)
	}
	byName, _, err := f.client.Zone.Get(ctx, "example.com")
	if err != nil || byName == nil || byName.ID != z.ID {
		t.Fatalf("zone by name: %+v, %v", byName, err)
	}
	_, _, err = f.client.Zone.Create(ctx, hcloud.ZoneCreateOpts{Name: "example.com", Mode: hcloud.ZoneModePrimary})
	wantCodeOf(t, "the same name again", err, hcloud.ErrorCodeUniquenessError)

	secondary, _, err := f.client.Zone.Create(ctx, hcloud.ZoneCreateOpts{Name: "example.org", Mode: hcloud.ZoneModeSecondary,
		PrimaryNameservers: []hcloud.ZoneCreateOptsPrimaryNameserver{{Address: "201.34.67.42"}, {Address: "201.34.67.43", Port: 5353}}})
	if err != nil {
		t.Fatal(err)
	}
	if p := secondary.Zone.PrimaryNameservers; len(p) != 2 || p[0].Port != 53 || p[1].Port != 5353 || secondary.Zone.RecordCount != 0 {
		t.Errorf("secondary zone's primaries %+v, records %d; want ports 53 and 5353 and no records", p, secondary.Zone.RecordCount)
	}
	prim, _, err := f.client.Zone.List(ctx, hcloud.ZoneListOpts{Mode: hcloud.ZoneModePrimary})
	if err != nil || len(prim) != 1 || prim[0].Name != "example.com" {
		t.Errorf("primary zones: %v, %v", prim, err)
	}
	_, _, err = f.client.Zone.ExportZonefile(ctx, secondary.Zone)
	wantCodeOf(t, "a secondary zone's zone file", err, "incorrect_zone_mode")
	_, _, err = f.client.Zone.ListRRSets(ctx, secondary.Zone, hcloud.ZoneRRSetListOpts{})
	wantCodeOf(t, "a secondary zone's RRSets", err, "incorrect_zone_mode")
	primaries := hcloud.ZoneChangePrimaryNameserversOpts{
		PrimaryNameservers: []hcloud.ZoneChangePrimaryNameserversOptsPrimaryNameserver{{Address: "89.34.67.42", Port: 5353}}}
	_, _, err = f.client.Zone.ChangePrimaryNameservers(ctx, z, primaries)
	wantCodeOf(t, "a primary zone's primaries", err, "incorrect_zone_mode")
	a, _, err := f.client.Zone.ChangePrimaryNameservers(ctx, secondary.Zone, primaries)
	f.waitAction(t, a, err)
	a, _, err = f.client.Zone.ChangeTTL(ctx, secondary.Zone, hcloud.ZoneChangeTTLOpts{TTL: 600})
	f.waitAction(t, a, err)
	if got, _, _ := f.client.Zone.GetByID(ctx, secondary.Zone.ID); got.TTL != 600 || len(got.PrimaryNameservers) != 1 || got.PrimaryNameservers[0].Address != "89.34.67.42" || got.PrimaryNameservers[0].Port != 5353 {
		t.Errorf("secondary zone after change_primary_nameservers and change_ttl: %+v", got)
	}

	updated, _, err := f.client.Zone.Update(ctx, z, hcloud.ZoneUpdateOpts{Labels: map[string]string{"env": "dev"}})
	if err != nil || updated.Labels["env"] != "dev" {
		t.Errorf("relabelled: %+v, %v", updated, err)
	}
	on := true
	a, _, err = f.client.Zone.ChangeProtection(ctx, z, hcloud.ZoneChangeProtectionOpts{Delete: &on})
	f.waitAction(t, a, err)
	_, _, err = f.client.Zone.Delete(ctx, z)
	wantCodeOf(t, "deleting a protected zone", err, hcloud.ErrorCodeProtected)
	off := false
	a, _, err = f.client.Zone.ChangeProtection(ctx, z, hcloud.ZoneChangeProtectionOpts{Delete: &off})
	f.waitAction(t, a, err)
	del, _, err := f.client.Zone.Delete(ctx, z)
	f.waitAction(t, del.Action, err)
	if gone, _, err := f.client.Zone.GetByID(ctx, z.ID); err != nil || gone != nil {
		t.Errorf("deleted zone: %+v, %v", gone, err)
	}
}

func TestZoneNamesAndInputRefused(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	for _, bad := range []hcloud.ZoneCreateOpts{
		{Name: "www.example.com", Mode: hcloud.ZoneModePrimary}, // a subdomain
		{Name: "Example.com", Mode: hcloud.ZoneModePrimary},     // upper case
		{Name: "example.com.", Mode: hcloud.ZoneModePrimary},    // a final dot
		{Name: "example.notatld", Mode: hcloud.ZoneModePrimary}, // no public suffix
		{Name: "example.com", Mode: "tertiary"},                 // no such mode
		{Name: "example.com", Mode: hcloud.ZoneModePrimary, TTL: new(59)},
		{Name: "example.com", Mode: hcloud.ZoneModeSecondary}, // no primaries
		{Name: "example.com", Mode: hcloud.ZoneModeSecondary, PrimaryNameservers: []hcloud.ZoneCreateOptsPrimaryNameserver{{Address: "10.0.0.1"}}},
		{Name: "example.com", Mode: hcloud.ZoneModePrimary, RRSets: []hcloud.ZoneCreateOptsRRSet{{Name: "www", Type: "A", Records: []hcloud.ZoneRRSetRecord{{Value: "1.2.3"}}}}},
		{Name: "example.com", Mode: hcloud.ZoneModePrimary, Zonefile: "@ IN A 1.2.3.4"}, // no SOA, no NS
	} {
		_, _, err := f.client.Zone.Create(ctx, bad)
		wantCodeOf(t, "creating "+bad.Name+" "+string(bad.Mode), err, hcloud.ErrorCodeInvalidInput)
	}
	if all, _ := f.client.Zone.All(ctx); len(all) != 0 {
		t.Errorf("refused creates left %d zones", len(all))
	}
	co, _, err := f.client.Zone.Create(ctx, hcloud.ZoneCreateOpts{Name: "example.co.uk", Mode: hcloud.ZoneModePrimary})
	if err != nil || co.Zone.Name != "example.co.uk" {
		t.Errorf("a name under a two-label public suffix: %v", err)
	}
}

func TestRRSets(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	z := newZone(t, f, "example.com")
	res, _, err := f.client.Zone.CreateRRSet(ctx, z, hcloud.ZoneRRSetCreateOpts{Name: "www", Type: "A", TTL: new(600), Labels: map[string]string{"k": "v"},
		Records: []hcloud.ZoneRRSetRecord{{Value: "201.42.91.35"}, {Value: "201.42.91.36", Comment: "web"}}})
	if err != nil {
		t.Fatal(err)
	}
	f.waitAction(t, res.Action, nil)
	if r := res.RRSet; r.ID != "www/A" || r.TTL == nil || *r.TTL != 600 || len(r.Records) != 2 || res.Action.Command != "create_rrset" {
		t.Errorf("created %+v", r)
	}
	_, _, err = f.client.Zone.CreateRRSet(ctx, z, hcloud.ZoneRRSetCreateOpts{Name: "www", Type: "A", Records: []hcloud.ZoneRRSetRecord{{Value: "201.42.91.37"}}})
	wantCodeOf(t, "the same RRSet again", err, hcloud.ErrorCodeUniquenessError)
	_, _, err = f.client.Zone.CreateRRSet(ctx, z, hcloud.ZoneRRSetCreateOpts{Name: "www", Type: "CNAME", Records: []hcloud.ZoneRRSetRecord{{Value: "other.example.com."}}})
	wantCodeOf(t, "a CNAME beside an A", err, hcloud.ErrorCodeInvalidInput)
	for _, bad := range []hcloud.ZoneRRSetCreateOpts{
		{Name: "mail", Type: "A", Records: []hcloud.ZoneRRSetRecord{{Value: "not-an-address"}}},
		{Name: "mail", Type: "AAAA", Records: []hcloud.ZoneRRSetRecord{{Value: "201.42.91.35"}}},
		{Name: "txt", Type: "TXT", Records: []hcloud.ZoneRRSetRecord{{Value: "unquoted words"}}},
		{Name: "mail.example.com", Type: "A", Records: []hcloud.ZoneRRSetRecord{{Value: "201.42.91.35"}}},
		{Name: "Mail", Type: "A", Records: []hcloud.ZoneRRSetRecord{{Value: "201.42.91.35"}}},
		{Name: "mail", Type: "A", Records: []hcloud.ZoneRRSetRecord{{Value: "201.42.91.35"}, {Value: "201.42.91.35"}}},
		{Name: "mail", Type: "A", Records: nil},
		{Name: "mail", Type: "SPF", Records: []hcloud.ZoneRRSetRecord{{Value: `"v=spf1 -all"`}}},
		{Name: "mail", Type: "A", Records: []hcloud.ZoneRRSetRecord{{Value: "201.42.91.35\nevil IN A 1.1.1.1"}}},
		{Name: "@", Type: "CNAME", Records: []hcloud.ZoneRRSetRecord{{Value: "example.net."}}},
	} {
		_, _, err := f.client.Zone.CreateRRSet(ctx, z, bad)
		wantCodeOf(t, "RRSet "+bad.Name+"/"+string(bad.Type), err, hcloud.ErrorCodeInvalidInput)
	}
	_, _, err = f.client.Zone.CreateRRSet(ctx, z, hcloud.ZoneRRSetCreateOpts{Name: "@", Type: "SOA", Records: []hcloud.ZoneRRSetRecord{{Value: "a. b. 0 1 1 1 1"}}})
	wantCodeOf(t, "a second SOA", err, hcloud.ErrorCodeUniquenessError)

	// add_records creates an RRSet, and appends to one.
	rs := &hcloud.ZoneRRSet{Zone: z, Name: "_acme-challenge", Type: "TXT"}
	a, _, err := f.client.Zone.AddRRSetRecords(ctx, rs, hcloud.ZoneRRSetAddRecordsOpts{Records: []hcloud.ZoneRRSetRecord{{Value: `"token-1"`}}})
	f.waitAction(t, a, err)
	a, _, err = f.client.Zone.AddRRSetRecords(ctx, rs, hcloud.ZoneRRSetAddRecordsOpts{Records: []hcloud.ZoneRRSetRecord{{Value: `"token-2"`}}, TTL: new(60)})
	f.waitAction(t, a, err)
	if got := zoneRRSet(t, f, z, "_acme-challenge", "TXT"); got == nil || !slices.Equal(values(got), []string{`"token-1"`, `"token-2"`}) || got.TTL == nil || *got.TTL != 60 {
		t.Errorf("after two add_records: %+v", got)
	}
	_, _, err = f.client.Zone.AddRRSetRecords(ctx, rs, hcloud.ZoneRRSetAddRecordsOpts{Records: []hcloud.ZoneRRSetRecord{{Value: `"token-1"`}}})
	wantCodeOf(t, "adding a record it holds", err, hcloud.ErrorCodeInvalidInput)
	// remove_records deletes the RRSet it empties.
	a, _, err = f.client.Zone.RemoveRRSetRecords(ctx, rs, hcloud.ZoneRRSetRemoveRecordsOpts{Records: []hcloud.ZoneRRSetRecord{{Value: `"token-1"`}, {Value: `"token-2"`}}})
	f.waitAction(t, a, err)
	if got := zoneRRSet(t, f, z, "_acme-challenge", "TXT"); got != nil {
		t.Errorf("emptied RRSet still there: %+v", got)
	}

	www := res.RRSet
	a, _, err = f.client.Zone.UpdateRRSetRecords(ctx, www, hcloud.ZoneRRSetUpdateRecordsOpts{Records: []hcloud.ZoneRRSetRecord{{Value: "201.42.91.35", Comment: "new"}}})
	f.waitAction(t, a, err)
	a, _, err = f.client.Zone.ChangeRRSetTTL(ctx, www, hcloud.ZoneRRSetChangeTTLOpts{TTL: nil})
	f.waitAction(t, a, err)
	if got := zoneRRSet(t, f, z, "www", "A"); got.TTL != nil || got.Records[slices.IndexFunc(got.Records, func(r hcloud.ZoneRRSetRecord) bool { return r.Value == "201.42.91.35" })].Comment != "new" {
		t.Errorf("after update_records and change_ttl null: %+v", got)
	}
	on := true
	a, _, err = f.client.Zone.ChangeRRSetProtection(ctx, www, hcloud.ZoneRRSetChangeProtectionOpts{Change: &on})
	f.waitAction(t, a, err)
	_, _, err = f.client.Zone.SetRRSetRecords(ctx, www, hcloud.ZoneRRSetSetRecordsOpts{Records: []hcloud.ZoneRRSetRecord{{Value: "1.1.1.1"}}})
	wantCodeOf(t, "set_records on a protected RRSet", err, hcloud.ErrorCodeProtected)
	_, _, err = f.client.Zone.DeleteRRSet(ctx, www)
	wantCodeOf(t, "deleting a protected RRSet", err, hcloud.ErrorCodeProtected)
	_, _, err = f.client.Zone.UpdateRRSet(ctx, www, hcloud.ZoneRRSetUpdateOpts{Labels: map[string]string{}})
	wantCodeOf(t, "relabelling a protected RRSet", err, hcloud.ErrorCodeProtected)

	// The apex's SOA and NS may change, not go.
	soa := zoneRRSet(t, f, z, "@", "SOA")
	_, _, err = f.client.Zone.DeleteRRSet(ctx, soa)
	wantCodeOf(t, "deleting the SOA", err, hcloud.ErrorCodeInvalidInput)
	a, _, err = f.client.Zone.SetRRSetRecords(ctx, soa, hcloud.ZoneRRSetSetRecordsOpts{Records: []hcloud.ZoneRRSetRecord{{Value: "hydrogen.ns.hetzner.com. dns.hetzner.com. 0 86400 10800 3600000 600"}}})
	f.waitAction(t, a, err)
	after := zoneRRSet(t, f, z, "@", "SOA")
	if v := strings.Fields(after.Records[0].Value); len(v) != 7 || v[6] != "600" || v[2] == "0" || v[2] <= strings.Fields(soa.Records[0].Value)[2] {
		t.Errorf("SOA %q after %q: want the new minimum and a larger serial", after.Records[0].Value, soa.Records[0].Value)
	}
	ns := zoneRRSet(t, f, z, "@", "NS")
	_, _, err = f.client.Zone.SetRRSetRecords(ctx, ns, hcloud.ZoneRRSetSetRecordsOpts{Records: []hcloud.ZoneRRSetRecord{{Value: "ns1.example.net."}}})
	wantCodeOf(t, "NS without the assigned nameservers", err, hcloud.ErrorCodeInvalidInput)

	typed, _, err := f.client.Zone.ListRRSets(ctx, z, hcloud.ZoneRRSetListOpts{Type: []hcloud.ZoneRRSetType{"NS", "SOA"}, ListOpts: hcloud.ListOpts{PerPage: 100}})
	if err != nil || len(typed) != 2 {
		t.Errorf("NS and SOA RRSets: %d, %v", len(typed), err)
	}
	if resp, body := f.do(t, http.MethodGet, "/v1/zones/example.com/rrsets?per_page=101", ""); resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("per_page=101: %d %s", resp.StatusCode, body)
	}
}

// TestZoneRecordLimit: a zone holds at most 10,000 records (a request
// adds at most 50, as the description says).
func TestZoneRecordLimit(t *testing.T) {
	f := newFixture(t, Options{})
	z := newZone(t, f, "example.com")
	for left, set := 9996, 0; left > 0; set++ {
		n := min(left, 50)
		records := make([]hcloud.ZoneRRSetRecord, 0, n)
		for i := range n {
			records = append(records, hcloud.ZoneRRSetRecord{Value: `"v` + itoa(i) + `"`})
		}
		rs := &hcloud.ZoneRRSet{Zone: z, Name: "bulk-" + itoa(set), Type: "TXT"}
		a, _, err := f.client.Zone.AddRRSetRecords(t.Context(), rs, hcloud.ZoneRRSetAddRecordsOpts{Records: records})
		f.waitAction(t, a, err)
		left -= n
	}
	_, _, err := f.client.Zone.AddRRSetRecords(t.Context(), &hcloud.ZoneRRSet{Zone: z, Name: "one-more", Type: "A"},
		hcloud.ZoneRRSetAddRecordsOpts{Records: []hcloud.ZoneRRSetRecord{{Value: "201.42.91.35"}}})
	wantCodeOf(t, "the 10,001st record", err, hcloud.ErrorCodeResourceLimitExceeded)
	if got, _, _ := f.client.Zone.GetByID(t.Context(), z.ID); got.RecordCount != 10000 {
		t.Errorf("record_count %d, want 10000", got.RecordCount)
	}
}

// TestZonesSurviveExport: a seed's zones, their RRSets, serial and
// protection come back from an export, and a broken import is refused.
func TestZonesSurviveExport(t *testing.T) {
	fc, data, back := roundTrip(t, `
zones:
  - name: example.com
    protected: true
    rrsets: [{name: www, type: A, ttl: 300, records: [{value: 201.42.91.35, comment: web}]}]
  - {name: example.org, mode: secondary, primary_nameservers: [{address: 201.34.67.42, port: 5353}]}
`)
	for _, path := range []string{"/v1/zones/example.com", "/v1/zones/example.com/rrsets?sort=id", "/v1/zones/example.org", "/v1/zones/example.com/zonefile"} {
		before, after := answer(t, fc, "GET", path, nil).Body.String(), answer(t, back, "GET", path, nil).Body.String()
		if before != after {
			t.Errorf("%s after the round trip:\n%s\nbefore:\n%s", path, after, before)
		}
	}
	if zf := answer(t, back, "GET", "/v1/zones/example.com/zonefile", nil).Body.String(); !strings.Contains(zf, `www.example.com.\t300\tIN\tA\t201.42.91.35 ; web`) {
		t.Errorf("zone file %s: want the www record with its comment", zf)
	}
	if !strings.Contains(answer(t, back, "GET", "/v1/zones/example.com", nil).Body.String(), `"protection":{"delete":true}`) {
		t.Error("the zone lost its protection")
	}
	bad := strings.Replace(string(data), `"example.org"`, `"example.com"`, 1)
	if bad == string(data) {
		t.Fatalf("no zone example.org in the export: %.500s", data)
	}
	if err := New(Options{}).Import([]byte(bad)); err == nil {
		t.Error("an export with two zones of one name was imported")
	}
}
