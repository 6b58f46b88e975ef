package world

import (
	"encoding/base64"
	"net/netip"
	"slices"
	"strconv"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// ZoneCreated is what creating a zone answers: the zone and its
// create_zone action.
type ZoneCreated struct {
	Zone   ZoneView      `json:"zone"`
	Action schema.Action `json:"action"`
}

// CreateZone makes a zone: a primary one with the default SOA and the
// assigned nameservers' NS RRSet, then the RRSets or the zone file given;
// a secondary one with its primary nameservers (at least one), ignoring
// RRSets and zone files as the description says.
func (t *Tx) CreateZone(req schema.ZoneCreateRequest) (ZoneCreated, *apierr.Error) {
	var f apierr.Fields
	t.w.checkZoneName(&f, req.Name)
	ttl := defaultZoneTTL
	if req.TTL != nil {
		ttl = *req.TTL
		checkTTL(&f, "ttl", ttl)
	}
	labels := DerefLabels(req.Labels)
	ValidateLabels(&f, "labels", labels)
	var primaries []schema.ZonePrimaryNameserver
	switch req.Mode {
	case "primary":
		if len(req.RRSets) > 0 && req.Zonefile != "" {
			f.Add("rrsets", "must be empty when a zonefile is given")
		}
	case "secondary":
		primaries = checkPrimaries(&f, "primary_nameservers", req.PrimaryNameservers)
	case "":
		f.Add("mode", "is required")
	default:
		f.Add("mode", "%q is not one of primary, secondary", req.Mode)
	}
	if err := f.Err(); err != nil {
		return ZoneCreated{}, err
	}
	table := zones.table(t.w)
	if NameTaken(table, func(z *StoredZone) string { return z.Name })(req.Name) {
		return ZoneCreated{}, apierr.NotUnique("name", "zone %q already exists", req.Name)
	}
	now := t.w.Now()
	z := &StoredZone{Name: req.Name, Mode: req.Mode, TTL: ttl, Created: now.UTC().Truncate(time.Second), Labels: labels,
		PrimaryNameservers: primaries, RRSets: map[string]*StoredRRSet{}}
	if z.Mode == "primary" {
		z.RRSets = defaultRRSets(now)
		switch {
		case req.Zonefile != "":
			sets, zttl, err := parseZonefile(z, req.Zonefile, now)
			if err != nil {
				return ZoneCreated{}, err
			}
			z.RRSets, z.TTL = sets, zttl
		case len(req.RRSets) > 0:
			if err := addGivenRRSets(z, req.RRSets, now); err != nil {
				return ZoneCreated{}, err
			}
		}
	}
	z.ID = t.w.NewID("zone")
	t.w.touch(z)
	table.Put(z.ID, z)
	a := t.w.startAction(ActionSpec{Command: "create_zone", Resources: []Ref{{Type: "zone", ID: z.ID}}, Finish: Finish{Created: true}})
	return ZoneCreated{Zone: viewZone(z), Action: t.w.ViewAction(a)}, nil
}

// defaultRRSets are a new primary zone's SOA and apex NS RRSets.
func defaultRRSets(now time.Time) map[string]*StoredRRSet {
	ns := make([]schema.ZoneRRSetRecord, 0, len(ZoneNameservers))
	for _, n := range ZoneNameservers {
		ns = append(ns, schema.ZoneRRSetRecord{Value: n})
	}
	at := now.UTC().Truncate(time.Second)
	return map[string]*StoredRRSet{
		rrsetKey("@", "SOA"): {Name: "@", Type: "SOA", Labels: map[string]string{}, Records: []schema.ZoneRRSetRecord{{Value: defaultSOA}}, Created: at},
		rrsetKey("@", "NS"):  {Name: "@", Type: "NS", Labels: map[string]string{}, Records: ns, Created: at},
	}
}

// addGivenRRSets adds a new zone's RRSets from its create request; one
// of the apex's SOA or NS replaces the default.
func addGivenRRSets(z *StoredZone, given []schema.ZoneCreateRequestRRSet, now time.Time) *apierr.Error {
	var f apierr.Fields
	seen := map[string]bool{}
	for i, r := range given {
		at := "rrsets[" + strconv.Itoa(i) + "]"
		set, err := newRRSet(z, at, r.Name, r.Type, r.TTL, r.Labels, r.Records, now)
		if err != nil {
			return err
		}
		key := rrsetKey(set.Name, set.Type)
		if seen[key] {
			f.Add(at, "RRSet %s is given twice", key)
			continue
		}
		seen[key] = true
		z.RRSets[key] = set
	}
	if err := f.Err(); err != nil {
		return err
	}
	for _, r := range z.RRSets {
		if err := checkCoexist(z, r.Name, r.Type); err != nil {
			return err
		}
	}
	return zoneRoomFor(z, 0)
}

// checkPrimaries validates a secondary zone's primary nameservers: at
// least one, public addresses given once, ports, and TSIG algorithm and
// key together, the key in base64. Port 0 is the default, 53.
func checkPrimaries(f *apierr.Fields, field string, given []schema.ZoneCreateRequestPrimaryNameserver) []schema.ZonePrimaryNameserver {
	if len(given) == 0 {
		f.Add(field, "a secondary zone needs at least one primary nameserver")
		return nil
	}
	var out []schema.ZonePrimaryNameserver
	var seen []netip.Addr
	for i, p := range given {
		at := field + "[" + strconv.Itoa(i) + "]"
		a, err := netip.ParseAddr(p.Address)
		switch {
		case err != nil || a.Zone() != "":
			f.Add(at+".address", "%q is not an IPv4 or IPv6 address", p.Address)
		case !a.IsGlobalUnicast() || a.IsPrivate():
			f.Add(at+".address", "%s is not a public address", p.Address)
		case slices.Contains(seen, a.Unmap()):
			f.Add(at+".address", "%s is given twice; addresses must be unique", p.Address)
		}
		seen = append(seen, a.Unmap())
		port := p.Port
		if port == 0 {
			port = 53
		}
		if port < 1 || port > 65535 {
			f.Add(at+".port", "must be between 1 and 65535")
		}
		switch {
		case (p.TSIGKey == "") != (p.TSIGAlgorithm == ""):
			f.Add(at, "tsig_key and tsig_algorithm are given together or not at all")
		case p.TSIGAlgorithm != "" && !slices.Contains([]string{"hmac-md5", "hmac-sha1", "hmac-sha256"}, p.TSIGAlgorithm):
			f.Add(at+".tsig_algorithm", "%q is not one of hmac-md5, hmac-sha1, hmac-sha256", p.TSIGAlgorithm)
		case p.TSIGKey != "":
			if _, err := base64.StdEncoding.DecodeString(p.TSIGKey); err != nil {
				f.Add(at+".tsig_key", "must be base64 encoded")
			}
		}
		out = append(out, schema.ZonePrimaryNameserver{Address: p.Address, Port: port, TSIGAlgorithm: p.TSIGAlgorithm, TSIGKey: p.TSIGKey})
	}
	return out
}

// ZoneUpdateRequest is PUT /zones/{id_or_name}: labels alone.
type ZoneUpdateRequest struct {
	Labels *map[string]string `json:"labels,omitempty"`
}

// UpdateZone relabels a zone, with no action.
func (t *Tx) UpdateZone(idOrName string, req ZoneUpdateRequest) (ZoneView, *apierr.Error) {
	z, err := t.w.findZone(idOrName)
	if err != nil {
		return ZoneView{}, err
	}
	if req.Labels != nil {
		var f apierr.Fields
		ValidateLabels(&f, "labels", *req.Labels)
		if err := f.Err(); err != nil {
			return ZoneView{}, err
		}
		z.Labels = CopyLabels(*req.Labels)
	}
	return viewZone(z), nil
}

// DeleteZone deletes an unprotected zone with its RRSets; the answer is
// its delete_zone action.
func (t *Tx) DeleteZone(idOrName string) (schema.Action, *apierr.Error) {
	z, err := t.w.findZone(idOrName)
	if err != nil {
		return schema.Action{}, err
	}
	ref, err := t.deletable("zone", z.ID, z.Protection.Delete)
	if err != nil {
		return schema.Action{}, err
	}
	t.w.forgetAll(ref)
	zones.table(t.w).Del(z.ID)
	a := t.w.startAction(ActionSpec{Command: "delete_zone", Resources: []Ref{ref}})
	return t.w.ViewAction(a), nil
}

// ChangeZoneProtection sets a zone's delete protection.
func (t *Tx) ChangeZoneProtection(idOrName string, req schema.ZoneChangeProtectionRequest) (schema.Action, *apierr.Error) {
	return t.onZone(idOrName, "change_protection", false, func(z *StoredZone) (step, *apierr.Error) {
		if req.Delete == nil {
			return step{}, nil
		}
		on := *req.Delete
		return step{apply: func() { z.Protection.Delete = on }, sets: [][]string{member("protection", "delete")}}, nil
	})
}

// ChangeZoneTTL sets a zone's default TTL, which its RRSets without one
// take. The description says primary zones only; the Terraform
// provider's acceptance test changes a secondary zone's TTL against the
// live API (TestAccZoneResource_Secondary), so both modes take it.
func (t *Tx) ChangeZoneTTL(idOrName string, req schema.ZoneChangeTTLRequest) (schema.Action, *apierr.Error) {
	return t.onZone(idOrName, "change_ttl", false, func(z *StoredZone) (step, *apierr.Error) {
		var f apierr.Fields
		checkTTL(&f, "ttl", req.TTL)
		if err := f.Err(); err != nil {
			return step{}, err
		}
		return step{apply: func() { z.TTL = req.TTL; t.w.touch(z) }, sets: [][]string{member("ttl")}}, nil
	})
}

// ChangeZonePrimaryNameservers replaces a secondary zone's primaries.
func (t *Tx) ChangeZonePrimaryNameservers(idOrName string, req schema.ZoneChangePrimaryNameserversRequest) (schema.Action, *apierr.Error) {
	return t.onZone(idOrName, "change_primary_nameservers", false, func(z *StoredZone) (step, *apierr.Error) {
		if z.Mode != "secondary" {
			return step{}, incorrectMode(z, "secondary")
		}
		given := make([]schema.ZoneCreateRequestPrimaryNameserver, 0, len(req.PrimaryNameservers))
		for _, p := range req.PrimaryNameservers {
			given = append(given, schema.ZoneCreateRequestPrimaryNameserver(p))
		}
		var f apierr.Fields
		primaries := checkPrimaries(&f, "primary_nameservers", given)
		if err := f.Err(); err != nil {
			return step{}, err
		}
		return step{apply: func() { z.PrimaryNameservers = primaries }, sets: [][]string{member("primary_nameservers")}}, nil
	})
}

// ImportZonefile replaces a primary zone's RRSets with a zone file's,
// unless one of them is change protected.
func (t *Tx) ImportZonefile(idOrName string, req schema.ZoneImportZonefileRequest) (schema.Action, *apierr.Error) {
	return t.onZone(idOrName, "import_zonefile", true, func(z *StoredZone) (step, *apierr.Error) {
		for _, r := range z.RRSets {
			if r.Protection.Change {
				return step{}, rrsetProtected(z, r)
			}
		}
		sets, ttl, err := parseZonefile(z, req.Zonefile, t.w.Now())
		if err != nil {
			return step{}, err
		}
		return step{apply: func() { z.RRSets, z.TTL = sets, ttl; t.w.touch(z) }, sets: [][]string{member("rrsets"), member("ttl")}}, nil
	})
}

// onZone runs a zone's action through the action runner; primaryOnly
// refuses a secondary zone (incorrect_zone_mode).
func (t *Tx) onZone(idOrName, command string, primaryOnly bool, plan func(z *StoredZone) (step, *apierr.Error)) (schema.Action, *apierr.Error) {
	z, err := t.w.findZone(idOrName)
	if err != nil {
		return schema.Action{}, err
	}
	return act(t, zones, z.ID, command, func(z *StoredZone) (step, *apierr.Error) {
		if primaryOnly && z.Mode != "primary" {
			return step{}, incorrectMode(z, "primary")
		}
		return plan(z)
	})
}

// incorrectMode is the API's answer to an operation of the other mode.
func incorrectMode(z *StoredZone, want string) *apierr.Error {
	return apierr.Errorf("incorrect_zone_mode", "%s is in %s mode; this operation is only supported for zones in %s mode", z, z.Mode, want)
}

// rrsetProtected is the answer to a change of a change-protected RRSet.
func rrsetProtected(z *StoredZone, r *StoredRRSet) *apierr.Error {
	return apierr.Errorf(apierr.CodeProtected, "RRSet %s of %s is change protected", rrsetKey(r.Name, r.Type), z)
}
