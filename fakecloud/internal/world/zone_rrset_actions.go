package world

import (
	"fmt"
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// The actions on an RRSet: each names its zone, moves the zone's serial
// on, and is refused on a change-protected RRSet (but its protection's
// own change).

// ChangeRRSetProtection sets an RRSet's change protection.
func (t *Tx) ChangeRRSetProtection(idOrName, name, typ string, req schema.ZoneRRSetChangeProtectionRequest) (schema.Action, *apierr.Error) {
	return t.onRRSet(idOrName, name, typ, "change_rrset_protection", func(_ *StoredZone, r *StoredRRSet) (step, *apierr.Error) {
		if req.Change == nil {
			return step{}, nil
		}
		on := *req.Change
		return step{apply: func() { r.Protection.Change = on }, sets: [][]string{member("rrsets", rrsetKey(r.Name, r.Type), "protection", "change")}}, nil
	})
}

// ChangeRRSetTTL sets an RRSet's TTL; null gives it the zone's default.
func (t *Tx) ChangeRRSetTTL(idOrName, name, typ string, req schema.ZoneRRSetChangeTTLRequest) (schema.Action, *apierr.Error) {
	return t.onRRSet(idOrName, name, typ, "change_rrset_ttl", func(z *StoredZone, r *StoredRRSet) (step, *apierr.Error) {
		var ttl *int
		if req.TTL != nil {
			var f apierr.Fields
			checkTTL(&f, "ttl", *req.TTL)
			if err := f.Err(); err != nil {
				return step{}, err
			}
			v := *req.TTL
			ttl = &v
		}
		return step{apply: func() { r.TTL = ttl; t.w.touch(z) }, sets: [][]string{member("rrsets", rrsetKey(r.Name, r.Type), "ttl")}}, nil
	})
}

// SetRRSetRecords replaces an RRSet's records.
func (t *Tx) SetRRSetRecords(idOrName, name, typ string, req schema.ZoneRRSetSetRecordsRequest) (schema.Action, *apierr.Error) {
	return t.onRRSet(idOrName, name, typ, "set_rrset_records", func(z *StoredZone, r *StoredRRSet) (step, *apierr.Error) {
		records, err := checkedRecords(z, r.Name, r.Type, req.Records)
		if err != nil {
			return step{}, err
		}
		if err := zoneRoomFor(z, len(records)-len(r.Records)); err != nil {
			return step{}, err
		}
		return step{apply: func() { r.Records = records; t.w.touch(z) }, sets: [][]string{member("rrsets", rrsetKey(r.Name, r.Type), "records")}}, nil
	})
}

// AddRRSetRecords adds records to an RRSet, creating it if the zone has
// none of that name and type; a ttl given sets the RRSet's. A value the
// RRSet already holds is refused.
func (t *Tx) AddRRSetRecords(idOrName, name, typ string, req schema.ZoneRRSetAddRecordsRequest) (schema.Action, *apierr.Error) {
	z, err := t.w.primaryZone(idOrName)
	if err != nil {
		return schema.Action{}, err
	}
	return act(t, zones, z.ID, "add_rrset_records", func(z *StoredZone) (step, *apierr.Error) {
		key := rrsetKey(name, typ)
		r, exists := z.RRSets[key]
		if !exists {
			created, err := newRRSet(z, "", name, typ, req.TTL, nil, req.Records, t.w.Now())
			if err != nil {
				return step{}, err
			}
			if err := checkCoexist(z, name, typ); err != nil {
				return step{}, err
			}
			if err := zoneRoomFor(z, len(created.Records)); err != nil {
				return step{}, err
			}
			return step{apply: func() { z.RRSets[key] = created; t.w.touch(z) }}, nil
		}
		if r.Protection.Change {
			return step{}, rrsetProtected(z, r)
		}
		var f apierr.Fields
		if req.TTL != nil {
			checkTTL(&f, "ttl", *req.TTL)
		}
		if len(req.Records) == 0 {
			f.Add("records", "must not be empty")
		}
		for i, rec := range req.Records {
			if indexOfValue(r.Records, rec.Value) >= 0 {
				f.Add(fmt.Sprintf("records[%d].value", i), "%q is already a record of RRSet %s", rec.Value, key)
			}
		}
		if err := f.Err(); err != nil {
			return step{}, err
		}
		records, err := checkedRecords(z, name, typ, append(slices.Clone(r.Records), req.Records...))
		if err != nil {
			return step{}, err
		}
		if err := zoneRoomFor(z, len(req.Records)); err != nil {
			return step{}, err
		}
		return step{apply: func() {
			r.Records = records
			if req.TTL != nil {
				ttl := *req.TTL
				r.TTL = &ttl
			}
			t.w.touch(z)
		}}, nil
	})
}

// RemoveRRSetRecords takes records out of an RRSet, deleting it when
// none is left; the apex's SOA and NS keep at least their own. A value
// the RRSet does not hold is refused.
func (t *Tx) RemoveRRSetRecords(idOrName, name, typ string, req schema.ZoneRRSetRemoveRecordsRequest) (schema.Action, *apierr.Error) {
	return t.onRRSet(idOrName, name, typ, "remove_rrset_records", func(z *StoredZone, r *StoredRRSet) (step, *apierr.Error) {
		left := slices.Clone(r.Records)
		if err := matchRecords(r, len(req.Records), func(i int) string { return req.Records[i].Value }, &left, func(_, j int) { left = slices.Delete(left, j, j+1) }); err != nil {
			return step{}, err
		}
		if len(left) == 0 {
			if managedRRSet(r.Name, r.Type) {
				return step{}, apierr.InvalidField("records", "the apex's %s RRSet is managed with the zone and cannot lose every record", r.Type)
			}
			return step{apply: func() { delete(z.RRSets, rrsetKey(r.Name, r.Type)); t.w.touch(z) }}, nil
		}
		if r.Type == "NS" && r.Name == "@" {
			if err := checkApexNS(&StoredRRSet{Records: left}); err != nil {
				return step{}, err
			}
		}
		return step{apply: func() { r.Records = left; t.w.touch(z) }}, nil
	})
}

// UpdateRRSetRecords changes the comments of an RRSet's records, each
// named by its value.
func (t *Tx) UpdateRRSetRecords(idOrName, name, typ string, req schema.ZoneRRSetUpdateRecordsRequest) (schema.Action, *apierr.Error) {
	return t.onRRSet(idOrName, name, typ, "update_rrset_records", func(z *StoredZone, r *StoredRRSet) (step, *apierr.Error) {
		records := slices.Clone(r.Records)
		if err := matchRecords(r, len(req.Records), func(i int) string { return req.Records[i].Value }, &records, func(i, j int) { records[j].Comment = req.Records[i].Comment }); err != nil {
			return step{}, err
		}
		var sets [][]string
		for _, rec := range req.Records {
			sets = append(sets, append(member("rrsets", rrsetKey(r.Name, r.Type)), element("records", map[string]any{"value": rec.Value}, "comment")...))
		}
		return step{apply: func() { r.Records = records }, sets: sets}, nil
	})
}

// matchRecords finds each of the n records a request names (at least
// one), by value(i), among records, calling each with the request's
// index and the record's; a value records lacks is refused.
func matchRecords(r *StoredRRSet, n int, value func(i int) string, records *[]schema.ZoneRRSetRecord, each func(i, j int)) *apierr.Error {
	var f apierr.Fields
	if n == 0 {
		f.Add("records", "must not be empty")
	}
	for i := range n {
		j := indexOfValue(*records, value(i))
		if j < 0 {
			f.Add(fmt.Sprintf("records[%d].value", i), "%q is not a record of RRSet %s", value(i), rrsetKey(r.Name, r.Type))
			continue
		}
		each(i, j)
	}
	return f.Err()
}

// checkedRecords validates an RRSet's new records, the apex's NS
// keeping the assigned nameservers.
func checkedRecords(z *StoredZone, name, typ string, records []schema.ZoneRRSetRecord) ([]schema.ZoneRRSetRecord, *apierr.Error) {
	var f apierr.Fields
	checkRecords(&f, "records", z.Name, name, typ, records)
	if err := f.Err(); err != nil {
		return nil, err
	}
	out := slices.Clone(records)
	if name == "@" && typ == "NS" {
		if err := checkApexNS(&StoredRRSet{Records: out}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// indexOfValue finds a record by its value.
func indexOfValue(records []schema.ZoneRRSetRecord, value string) int {
	return slices.IndexFunc(records, func(r schema.ZoneRRSetRecord) bool { return r.Value == value })
}
