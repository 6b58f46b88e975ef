package world

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
	"github.com/miekg/dns"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// RRSetTypes are the record types the API takes, as the description
// lists them.
var RRSetTypes = []string{"A", "AAAA", "CAA", "CNAME", "DS", "HINFO", "HTTPS", "MX", "NS", "PTR", "RP", "SOA", "SRV", "SVCB", "TLSA", "TXT"}

// rrsetLabel is one label of an RRSet's name: letters, digits, hyphens
// and underscores (_acme-challenge, _443._tcp), in lower case.
var rrsetLabel = regexp.MustCompile(`^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$`)

// checkRRSetName accepts "@" for the apex, or a name relative to the
// zone in lower case, not ending with a dot or the zone's name, whose
// first label may be the wildcard "*".
func checkRRSetName(f *apierr.Fields, field, zone, name string) {
	if name == "@" {
		return
	}
	switch {
	case name == "":
		f.Add(field, "is required")
		return
	case name != strings.ToLower(name):
		f.Add(field, "%q must be in lower case", name)
		return
	case strings.HasSuffix(name, "."):
		f.Add(field, "%q must not end with a dot", name)
		return
	case name == zone || strings.HasSuffix(name, "."+zone):
		f.Add(field, "%q must not end with the zone name %s; give it relative to the zone (%q for the apex)", name, zone, "@")
		return
	case len(name)+1+len(zone) > 253:
		f.Add(field, "%q makes a name longer than 253 characters", name)
		return
	}
	for i, l := range strings.Split(name, ".") {
		if (l == "*" && i == 0) || rrsetLabel.MatchString(l) {
			continue
		}
		f.Add(field, "%q is not a valid record name (label %q)", name, l)
		return
	}
}

// checkRRSetType accepts the types the API takes.
func checkRRSetType(f *apierr.Fields, field, typ string) {
	if !slices.Contains(RRSetTypes, typ) {
		f.Add(field, "%q is not one of %s", typ, strings.Join(RRSetTypes, ", "))
	}
}

// ownerName is an RRSet name's absolute form in a zone.
func ownerName(zone, name string) string {
	if name == "@" {
		return zone + "."
	}
	return name + "." + zone + "."
}

// parseRecord reads one record's value as a zone file would, relative
// names resolved in the zone, with miekg/dns.
func parseRecord(zone, name, typ string, ttl int, value string) (dns.RR, error) {
	if strings.ContainsAny(value, "\n\r") {
		return nil, fmt.Errorf("must be one line")
	}
	if strings.TrimSpace(value) == "" {
		return nil, fmt.Errorf("is empty")
	}
	zp := dns.NewZoneParser(strings.NewReader(fmt.Sprintf("%s %d IN %s %s\n", ownerName(zone, name), ttl, typ, value)), zone+".", "")
	rr, ok := zp.Next()
	if err := zp.Err(); err != nil {
		return nil, fmt.Errorf("is not a valid %s record: %s", typ, parseMessage(err))
	}
	if !ok || rr == nil {
		return nil, fmt.Errorf("is not a valid %s record", typ)
	}
	if _, more := zp.Next(); more {
		return nil, fmt.Errorf("holds more than one record")
	}
	return rr, nil
}

// parseMessage is a zone parser's complaint without its position.
func parseMessage(err error) string {
	s := strings.TrimPrefix(err.Error(), "dns: ")
	if i := strings.Index(s, " at line: "); i >= 0 {
		s = s[:i]
	}
	return s
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkRecords validates an RRSet's records: at least one, distinct,
// each a valid record of the type, and the rules of the type (one SOA,
// at the apex; one CNAME, not at the apex; TXT as quoted strings).
func checkRecords(f *apierr.Fields, field, zone, name, typ string, records []schema.ZoneRRSetRecord) {
	if len(records) == 0 {
		f.Add(field, "must not be empty")
		return
	}
	seen := map[string]bool{}
	for i, r := range records {
		at := fmt.Sprintf("%s[%d].value", field, i)
		if typ == "TXT" && !strings.HasPrefix(strings.TrimSpace(r.Value), `"`) {
			f.Add(at, "a TXT record is one or more quoted strings of at most 255 characters, not %q", r.Value)
			continue
		}
		rr, err := parseRecord(zone, name, typ, minTTL, r.Value)
		if err != nil {
			f.Add(at, "%q %v", r.Value, err)
			continue
		}
		key := canonicalData(rr)
		if seen[key] {
			f.Add(at, "%q is given twice; records must be distinct", r.Value)
		}
		seen[key] = true
	}
	switch {
	case typ == "SOA" && name != "@":
		f.Add(field, "an SOA record is only allowed at the apex (@)")
	case (typ == "SOA" || typ == "CNAME") && len(records) > 1:
		f.Add(field, "a %s RRSet holds one record, not %d", typ, len(records))
	case typ == "CNAME" && name == "@":
		f.Add(field, "a CNAME record is not allowed at the apex (@)")
	}
}

// canonicalData is a record's data in canonical form, to compare values.
func canonicalData(rr dns.RR) string {
	s := rr.String()
	h := rr.Header().String()
	return strings.ToLower(strings.TrimPrefix(s, h))
}

// checkCoexist refuses a CNAME beside other data at a name, and other
// data beside a CNAME (RFC 1034 section 3.6.2).
func checkCoexist(z *StoredZone, name, typ string) *apierr.Error {
	for _, r := range z.RRSets {
		if r.Name != name || r.Type == typ {
			continue
		}
		if typ == "CNAME" || r.Type == "CNAME" {
			return apierr.InvalidField("type", "%s has a %s RRSet; a CNAME cannot share its name with other records", ownerName(z.Name, name), r.Type)
		}
	}
	return nil
}

// withSerial is an SOA value with the zone's serial in its third field.
func withSerial(value string, serial uint32) string {
	fields := strings.Fields(value)
	if len(fields) < 3 {
		return value
	}
	fields[2] = strconv.FormatUint(uint64(serial), 10)
	return strings.Join(fields, " ")
}

// effectiveTTL is an RRSet's TTL, or its zone's default.
func effectiveTTL(z *StoredZone, r *StoredRRSet) int {
	if r.TTL != nil {
		return *r.TTL
	}
	return z.TTL
}

// zoneRRs are a primary zone's records as a nameserver serves them:
// absolute names, effective TTLs, the SOA with the zone's serial; the
// SOA first, then by name and type.
func zoneRRs(z *StoredZone) []dns.RR {
	recs := zoneRecords(z)
	out := make([]dns.RR, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.rr)
	}
	return out
}

// servedRecord is one record of a zone as served, with its comment.
type servedRecord struct {
	rr      dns.RR
	comment string
}

// zoneRecords are zoneRRs with their comments, each record read once.
func zoneRecords(z *StoredZone) []servedRecord {
	keys := make([]string, 0, len(z.RRSets))
	for k := range z.RRSets {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		ra, rb := z.RRSets[a], z.RRSets[b]
		if (ra.Type == "SOA") != (rb.Type == "SOA") {
			return boolInt(rb.Type == "SOA") - boolInt(ra.Type == "SOA")
		}
		return strings.Compare(a, b)
	})
	var out []servedRecord
	for _, k := range keys {
		r := z.RRSets[k]
		for _, rec := range r.Records {
			v := rec.Value
			if r.Type == "SOA" {
				v = withSerial(v, z.Serial)
			}
			if rr, err := parseRecord(z.Name, r.Name, r.Type, effectiveTTL(z, r), v); err == nil {
				out = append(out, servedRecord{rr: rr, comment: rec.Comment})
			}
		}
	}
	return out
}
