package world

import (
	"bufio"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
	"github.com/miekg/dns"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// Zone files are read and written in BIND format with miekg/dns, under
// the description's import rules: an $ORIGIN, if any, is the zone's; a
// $TTL, if any, becomes the zone's default TTL; IN records of the
// API's types only; an SOA and the assigned nameservers' NS records at
// the apex; comments discarded.

// maxZonefileRecords bounds one import, so a request cannot hold the
// world's lock for long.
const maxZonefileRecords = 10000

// parseZonefile reads a zone file for a zone: its RRSets and default
// TTL. A record whose TTL is the default keeps none of its own (the zone
// file cannot say whether one was written).
func parseZonefile(z *StoredZone, text string, now time.Time) (map[string]*StoredRRSet, int, *apierr.Error) {
	origin := z.Name + "."
	ttl := z.TTL
	if t, ok, err := directiveTTL(text); err != nil {
		return nil, 0, err
	} else if ok {
		ttl = t
	}
	zp := dns.NewZoneParser(strings.NewReader(text), origin, "")
	zp.SetDefaultTTL(uint32(ttl))
	sets := map[string]*StoredRRSet{}
	at := now.UTC().Truncate(time.Second)
	count := 0
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		if count++; count > maxZonefileRecords {
			return nil, 0, apierr.InvalidField("zonefile", "holds more than %d records", maxZonefileRecords)
		}
		h := rr.Header()
		typ := dns.TypeToString[h.Rrtype]
		owner := strings.ToLower(h.Name)
		switch {
		case h.Class != dns.ClassINET:
			return nil, 0, apierr.InvalidField("zonefile", "%s %s: only IN (internet) class records are allowed", owner, typ)
		case !slices.Contains(RRSetTypes, typ):
			return nil, 0, apierr.InvalidField("zonefile", "%s: record type %s is not supported", owner, typ)
		case owner != origin && !strings.HasSuffix(owner, "."+origin):
			return nil, 0, apierr.InvalidField("zonefile", "%s is outside the zone %s (an $ORIGIN must be the zone's name with a final dot)", owner, origin)
		case int(h.Ttl) < minTTL:
			return nil, 0, apierr.InvalidField("zonefile", "%s %s: TTL %d is below %d", owner, typ, h.Ttl, minTTL)
		}
		name := "@"
		if owner != origin {
			name = strings.TrimSuffix(owner, "."+origin)
		}
		key := rrsetKey(name, typ)
		set, ok := sets[key]
		if !ok {
			set = &StoredRRSet{Name: name, Type: typ, Labels: map[string]string{}, Created: at}
			if int(h.Ttl) != ttl {
				t := int(h.Ttl)
				set.TTL = &t
			}
			sets[key] = set
		}
		value := strings.TrimPrefix(rr.String(), h.String())
		if typ == "SOA" {
			value = withSerial(value, 0)
		}
		set.Records = append(set.Records, schema.ZoneRRSetRecord{Value: value})
	}
	if err := zp.Err(); err != nil {
		return nil, 0, apierr.InvalidField("zonefile", "is not a valid zone file: %s", strings.TrimPrefix(err.Error(), "dns: "))
	}
	var f apierr.Fields
	for _, key := range slices.Sorted(maps.Keys(sets)) {
		s := sets[key]
		checkRRSetName(&f, "zonefile", z.Name, s.Name)
		checkRecords(&f, "zonefile "+key, z.Name, s.Name, s.Type, s.Records)
	}
	if err := f.Err(); err != nil {
		return nil, 0, err
	}
	if _, ok := sets[rrsetKey("@", "SOA")]; !ok {
		return nil, 0, apierr.InvalidField("zonefile", "an SOA record at the apex is required")
	}
	if err := checkApexNS(sets[rrsetKey("@", "NS")]); err != nil {
		return nil, 0, err
	}
	check := &StoredZone{Name: z.Name, RRSets: sets}
	for _, s := range sets {
		if err := checkCoexist(check, s.Name, s.Type); err != nil {
			return nil, 0, err
		}
	}
	return sets, ttl, nil
}

// directiveTTL finds a zone file's $TTL directive, which becomes the
// zone's default TTL.
func directiveTTL(text string) (int, bool, *apierr.Error) {
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64*1024), len(text)+1)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || !strings.EqualFold(fields[0], "$TTL") {
			continue
		}
		// The directive's value as the zone parser reads it (units too):
		// the TTL of a record that gives none.
		zp := dns.NewZoneParser(strings.NewReader("$TTL "+fields[1]+"\n. IN TXT \"\"\n"), ".", "")
		rr, ok := zp.Next()
		var ttl uint32
		if ok {
			ttl = rr.Header().Ttl
		}
		if !ok || zp.Err() != nil || int64(ttl) < minTTL || int64(ttl) > maxTTL {
			return 0, false, apierr.InvalidField("zonefile", "$TTL %s is not a TTL between %d and %d", fields[1], minTTL, maxTTL)
		}
		return int(ttl), true, nil
	}
	return 0, false, nil
}

// checkApexNS wants the assigned nameservers among the apex's NS records.
func checkApexNS(ns *StoredRRSet) *apierr.Error {
	var have []string
	if ns != nil {
		for _, r := range ns.Records {
			have = append(have, strings.ToLower(dns.Fqdn(strings.TrimSpace(r.Value))))
		}
	}
	for _, want := range ZoneNameservers {
		if !slices.Contains(have, want) {
			return apierr.InvalidField("zonefile", "the assigned nameservers %s must be present as NS records at the apex", strings.Join(ZoneNameservers, ", "))
		}
	}
	return nil
}

// ZoneFile is a primary zone's zone file: $ORIGIN, $TTL, and every
// record, the SOA first, a record's comment after it.
func (t *Tx) ZoneFile(idOrName string) (string, *apierr.Error) {
	z, err := t.w.findZone(idOrName)
	if err != nil {
		return "", err
	}
	if z.Mode != "primary" {
		return "", incorrectMode(z, "primary")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "$ORIGIN %s.\n$TTL %d\n\n", z.Name, z.TTL)
	for _, r := range zoneRecords(z) {
		line := r.rr.String()
		// The SOA's comment is left out, as its serial is the zone's.
		if r.comment != "" && r.rr.Header().Rrtype != dns.TypeSOA {
			line += " ; " + strings.ReplaceAll(r.comment, "\n", " ")
		}
		b.WriteString(line + "\n")
	}
	return b.String(), nil
}

// ZoneAnswers are the records of the primary zone a name lies within
// (the longest zone name that is the name or one of its parents), for a
// nameserver: its origin, records and version, or false. The version
// names the records (the same version, the same records), which are
// rendered once per version and shared: callers must not change them.
func (t *Tx) ZoneAnswers(name string) (origin string, rrs []dns.RR, version string, ok bool) {
	name = strings.ToLower(dns.Fqdn(name))
	var best *StoredZone
	for _, z := range zones.table(t.w).All() {
		origin := z.Name + "."
		if z.Mode == "primary" && (name == origin || strings.HasSuffix(name, "."+origin)) && (best == nil || len(z.Name) > len(best.Name)) {
			best = z
		}
	}
	if best == nil {
		return "", nil, "", false
	}
	// Every change of the world counts in Changes, and a failed action's
	// undo moves the serial; the TTL and status are there for clarity.
	version = fmt.Sprintf("%d/%d/%d/%s/%d", best.ID, best.Serial, best.TTL, best.Status, t.w.Changes)
	if c, hit := t.w.answers[best.ID]; hit && c.version == version {
		return best.Name + ".", c.rrs, version, true
	}
	rrs = servedRRs(best)
	if t.w.answers == nil || len(t.w.answers) >= maxRenderedZones {
		t.w.answers = map[int64]renderedZone{}
	}
	t.w.answers[best.ID] = renderedZone{version: version, rrs: rrs}
	return best.Name + ".", rrs, version, true
}

// renderedZone is a zone's records as the nameserver serves them, at a
// version (ZoneAnswers).
type renderedZone struct {
	version string
	rrs     []dns.RR
}

// maxRenderedZones bounds the zones kept rendered: past it, all are
// rendered again as queries come.
const maxRenderedZones = 1024
