package world

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/listing"
)

// RRSets are a primary zone's records, one set a name and type. The
// apex's SOA and NS RRSets come with the zone and go with it: they may
// be changed, not created or deleted. An RRSet's actions are its zone's,
// and run side by side (a DNS-01 solver writes two challenges into one
// zone at once; the Terraform provider adds two records to one RRSet
// at once), each undoing only its own RRSet.

// maxZoneRecords bounds a zone's records. The description names no
// limit; fakecloud keeps one, as a zone file import's, so a client
// cannot grow the world without bound.
const maxZoneRecords = maxZonefileRecords

// zoneRoomFor refuses a change that would take a zone past maxZoneRecords.
func zoneRoomFor(z *StoredZone, adding int) *apierr.Error {
	have := 0
	for _, r := range z.RRSets {
		have += len(r.Records)
	}
	if have+adding > maxZoneRecords {
		return apierr.LimitExceeded("records", "%s holds %d records; at most %d are allowed", z, have, maxZoneRecords)
	}
	return nil
}

// managedRRSet reports the apex's SOA and NS, which the API manages.
func managedRRSet(name, typ string) bool { return name == "@" && (typ == "SOA" || typ == "NS") }

// viewRRSet is an RRSet as the API shows it: its SOA with the zone's
// serial.
func viewRRSet(z *StoredZone, r *StoredRRSet) schema.ZoneRRSet {
	v := schema.ZoneRRSet{ID: rrsetKey(r.Name, r.Type), Name: r.Name, Type: r.Type, Labels: CopyLabels(r.Labels),
		Protection: r.Protection, Records: slices.Clone(r.Records), Zone: z.ID}
	if r.TTL != nil {
		ttl := *r.TTL
		v.TTL = &ttl
	}
	if v.Records == nil {
		v.Records = []schema.ZoneRRSetRecord{}
	}
	if r.Type == "SOA" {
		for i := range v.Records {
			v.Records[i].Value = withSerial(v.Records[i].Value, z.Serial)
		}
	}
	return v
}

// primaryZone is the primary zone with an ID or name; a secondary one
// answers incorrect_zone_mode.
func (w *project) primaryZone(idOrName string) (*StoredZone, *apierr.Error) {
	z, err := w.findZone(idOrName)
	if err != nil {
		return nil, err
	}
	if z.Mode != "primary" {
		return nil, incorrectMode(z, "primary")
	}
	return z, nil
}

// findRRSet is a primary zone's RRSet of a name and type.
func (w *project) findRRSet(idOrName, name, typ string) (*StoredZone, *StoredRRSet, *apierr.Error) {
	z, err := w.primaryZone(idOrName)
	if err != nil {
		return nil, nil, err
	}
	r, ok := z.RRSets[rrsetKey(name, typ)]
	if !ok {
		return nil, nil, apierr.NotFound("rrset", rrsetKey(name, typ))
	}
	return z, r, nil
}

// RRSet is a primary zone's RRSet of a name and type.
func (t *Tx) RRSet(idOrName, name, typ string) (schema.ZoneRRSet, *apierr.Error) {
	z, r, err := t.w.findRRSet(idOrName, name, typ)
	if err != nil {
		return schema.ZoneRRSet{}, err
	}
	return viewRRSet(z, r), nil
}

// RRSets lists a primary zone's RRSets a query selects (by name, label
// selector and any of types), one page of them, and how many in all.
func (t *Tx) RRSets(idOrName string, q listing.Query, types []string) ([]schema.ZoneRRSet, int, *apierr.Error) {
	var f apierr.Fields
	for i, typ := range types {
		checkRRSetType(&f, "type["+strconv.Itoa(i)+"]", typ)
	}
	if err := f.Err(); err != nil {
		return nil, 0, err
	}
	z, err := t.w.primaryZone(idOrName)
	if err != nil {
		return nil, 0, err
	}
	items := slices.DeleteFunc(slices.Collect(maps.Values(z.RRSets)), func(r *StoredRRSet) bool {
		return !q.Keeps(r.Name, r.Labels) || (len(types) > 0 && !slices.Contains(types, r.Type))
	})
	// sort=id orders by the RRSet's ID, name and type.
	keys := listing.SortKeys[*StoredRRSet]{
		"id": func(a, b *StoredRRSet) int {
			return strings.Compare(rrsetKey(a.Name, a.Type), rrsetKey(b.Name, b.Type))
		},
		"name":    func(a, b *StoredRRSet) int { return strings.Compare(a.Name, b.Name) },
		"created": func(a, b *StoredRRSet) int { return a.Created.Compare(b.Created) },
	}
	return listing.Page(items, q, keys, func(r *StoredRRSet) schema.ZoneRRSet { return viewRRSet(z, r) })
}

// newRRSet validates a new RRSet of a zone.
func newRRSet(z *StoredZone, field, name, typ string, ttl *int, labels *map[string]string, records []schema.ZoneRRSetRecord, now time.Time) (*StoredRRSet, *apierr.Error) {
	at := func(member string) string {
		if field == "" {
			return member
		}
		return field + "." + member
	}
	var f apierr.Fields
	checkRRSetName(&f, at("name"), z.Name, name)
	checkRRSetType(&f, at("type"), typ)
	if ttl != nil {
		checkTTL(&f, at("ttl"), *ttl)
	}
	l := DerefLabels(labels)
	ValidateLabels(&f, at("labels"), l)
	if f.Empty() {
		checkRecords(&f, at("records"), z.Name, name, typ, records)
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	r := &StoredRRSet{Name: name, Type: typ, Labels: l, Records: slices.Clone(records), Created: now.UTC().Truncate(time.Second)}
	if ttl != nil {
		v := *ttl
		r.TTL = &v
	}
	if typ == "NS" && name == "@" {
		if err := checkApexNS(r); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// RRSetCreated is what creating an RRSet answers.
type RRSetCreated struct {
	RRSet  schema.ZoneRRSet `json:"rrset"`
	Action schema.Action    `json:"action"`
}

// CreateRRSet adds an RRSet to a primary zone: uniqueness_error (409) if
// the zone has one of that name and type, as live answers show
// (qdm12/ddns-updater pull request 1165), the apex's SOA and NS
// included.
func (t *Tx) CreateRRSet(idOrName string, req schema.ZoneRRSetCreateRequest) (RRSetCreated, *apierr.Error) {
	z, err := t.w.primaryZone(idOrName)
	if err != nil {
		return RRSetCreated{}, err
	}
	var out RRSetCreated
	a, err := act(t, zones, z.ID, "create_rrset", func(z *StoredZone) (step, *apierr.Error) {
		r, err := newRRSet(z, "", req.Name, req.Type, req.TTL, req.Labels, req.Records, t.w.Now())
		if err != nil {
			return step{}, err
		}
		key := rrsetKey(r.Name, r.Type)
		if _, dup := z.RRSets[key]; dup {
			return step{}, apierr.NotUnique("name", "RRSet %s already exists in %s", key, z)
		}
		if err := checkCoexist(z, r.Name, r.Type); err != nil {
			return step{}, err
		}
		if err := zoneRoomFor(z, len(r.Records)); err != nil {
			return step{}, err
		}
		return step{apply: func() {
			z.RRSets[key] = r
			t.w.touch(z)
			out.RRSet = viewRRSet(z, r)
		}}, nil
	})
	if err != nil {
		return RRSetCreated{}, err
	}
	out.Action = a
	return out, nil
}

// RRSetUpdateRequest is PUT /zones/{id_or_name}/rrsets/{name}/{type}:
// labels alone.
type RRSetUpdateRequest struct {
	Labels *map[string]string `json:"labels,omitempty"`
}

// UpdateRRSet relabels an RRSet, with no action; a change-protected one
// is refused, as its protection says ("prevent the resource from being
// changed").
func (t *Tx) UpdateRRSet(idOrName, name, typ string, req RRSetUpdateRequest) (schema.ZoneRRSet, *apierr.Error) {
	z, r, err := t.w.findRRSet(idOrName, name, typ)
	if err != nil {
		return schema.ZoneRRSet{}, err
	}
	if req.Labels != nil {
		var f apierr.Fields
		ValidateLabels(&f, "labels", *req.Labels)
		if err := f.Err(); err != nil {
			return schema.ZoneRRSet{}, err
		}
		if r.Protection.Change {
			return schema.ZoneRRSet{}, rrsetProtected(z, r)
		}
		r.Labels = CopyLabels(*req.Labels)
	}
	return viewRRSet(z, r), nil
}

// DeleteRRSet deletes an RRSet that is neither change protected nor the
// apex's SOA or NS.
func (t *Tx) DeleteRRSet(idOrName, name, typ string) (schema.Action, *apierr.Error) {
	return t.onRRSet(idOrName, name, typ, "delete_rrset", func(z *StoredZone, r *StoredRRSet) (step, *apierr.Error) {
		if managedRRSet(r.Name, r.Type) {
			return step{}, apierr.InvalidField("rrset", "the apex's %s RRSet is managed with the zone and cannot be deleted", r.Type)
		}
		return step{apply: func() { delete(z.RRSets, rrsetKey(r.Name, r.Type)); t.w.touch(z) }}, nil
	})
}

// onRRSet runs an action on an existing RRSet of a primary zone; one
// that is change protected is refused.
func (t *Tx) onRRSet(idOrName, name, typ, command string, plan func(z *StoredZone, r *StoredRRSet) (step, *apierr.Error)) (schema.Action, *apierr.Error) {
	z, _, err := t.w.findRRSet(idOrName, name, typ)
	if err != nil {
		return schema.Action{}, err
	}
	return act(t, zones, z.ID, command, func(z *StoredZone) (step, *apierr.Error) {
		r := z.RRSets[rrsetKey(name, typ)]
		if r.Protection.Change && command != "change_rrset_protection" {
			return step{}, rrsetProtected(z, r)
		}
		return plan(z, r)
	})
}
