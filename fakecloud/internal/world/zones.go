package world

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/listing"
)

// DNS zones are served by Hetzner's authoritative nameservers. A primary
// zone holds its RRSets, keyed by name and type, so that actions on two
// RRSets of one zone, which run side by side, each undo only their own;
// a secondary zone holds the primary nameservers it transfers from.
// Every change to a zone's records moves its SOA serial on.

// ZoneNameservers are the Hetzner nameservers every zone is assigned,
// as the description's examples and zone file rules name them.
var ZoneNameservers = []string{"hydrogen.ns.hetzner.com.", "oxygen.ns.hetzner.com.", "helium.ns.hetzner.de."}

// defaultSOA is the SOA a new zone gets (serial 0 stands for the zone's
// serial, which the view fills in): the description's zone file example.
const defaultSOA = "hydrogen.ns.hetzner.com. dns.hetzner.com. 0 86400 10800 3600000 3600"

const (
	defaultZoneTTL = 3600
	minTTL         = 60
	maxTTL         = 2147483647
)

// StoredZone is a zone as fakecloud keeps it.
type StoredZone struct {
	ID                 int64                          `json:"id"`
	Name               string                         `json:"name"`
	Mode               string                         `json:"mode"`
	TTL                int                            `json:"ttl"`
	Created            time.Time                      `json:"created"`
	Labels             map[string]string              `json:"labels"`
	Protection         schema.ZoneProtection          `json:"protection"`
	PrimaryNameservers []schema.ZonePrimaryNameserver `json:"primary_nameservers"`
	// Serial is the SOA serial, YYYYMMDDnn, moved on by every change.
	Serial uint32 `json:"serial"`
	// RRSets of a primary zone, by rrsetKey.
	RRSets map[string]*StoredRRSet `json:"rrsets"`
	// Status is what a set_zone_status event made of its publishing:
	// "" (ok), updating or error; Published is the zone as the
	// nameservers serve it while updating, as zone file lines.
	Status    string `json:"status,omitempty"`
	Published string `json:"published,omitempty"`
}

// StoredRRSet is one RRSet of a primary zone.
type StoredRRSet struct {
	Name       string                     `json:"name"`
	Type       string                     `json:"type"`
	TTL        *int                       `json:"ttl"`
	Labels     map[string]string          `json:"labels"`
	Protection schema.ZoneRRSetProtection `json:"protection"`
	Records    []schema.ZoneRRSetRecord   `json:"records"`
	Created    time.Time                  `json:"created"` // for sort=created; the API shows none
}

// rrsetKey is an RRSet's ID: its name and type joined by a slash.
func rrsetKey(name, typ string) string { return name + "/" + typ }

// zones is the zone kind's handle; the registry keeps its table, and a
// snapshot its list under kinds.
var zones, zoneTable = ownKind("zone", func(z *StoredZone) (int64, string) { return z.ID, z.Name })

// zoneCommands are the commands of a zone's actions, its RRSets' too.
var zoneCommands = []string{"create_zone", "delete_zone", "change_protection", "change_ttl", "change_primary_nameservers", "import_zonefile",
	"create_rrset", "delete_rrset", "change_rrset_protection", "change_rrset_ttl",
	"set_rrset_records", "add_rrset_records", "remove_rrset_records", "update_rrset_records"}

// zoneKind declares zones. Their RRSets' actions are the zone's, as the
// API lists them: each names the zone alone.
func zoneKind() kind {
	return zones.declare(kind{
		idBase:   1300000,
		own:      zoneTable,
		commands: zoneCommands,
		// A zone's actions run side by side, none holding the zone: the
		// Terraform provider starts create_zone, change_protection,
		// change_ttl and change_primary_nameservers one after the other
		// and waits for them together, and its acceptance tests pass
		// against the live API; RRSets' actions each undo their own RRSet.
		shares: zoneCommands,
		protect: func(w *project, id int64, on bool) {
			if z, ok := zones.table(w).Get(id); ok {
				z.Protection.Delete = on
			}
		},
		finish: func(w *project, id int64, f Finish, ok bool) {
			z, found := zones.table(w).Get(id)
			switch {
			case !found || ok:
			case f.Created:
				zones.table(w).Del(id) // a failed create_zone leaves no zone
			default:
				// The undo put the records back: the serial moves past the
				// one the failed change published, so a secondary that
				// fetched it fetches again.
				z.Serial = nextSerial(z.Serial+1, w.Now())
			}
		},
	})
}

// nextSerial is the serial after s on a day: YYYYMMDD00 on a new day,
// else one more.
func nextSerial(s uint32, now time.Time) uint32 {
	day, _ := strconv.ParseUint(now.UTC().Format("20060102"), 10, 32)
	if d := uint32(day) * 100; s < d {
		return d
	}
	return s + 1
}

// touch records a change to a zone's records.
func (w *project) touch(z *StoredZone) { z.Serial = nextSerial(z.Serial, w.Now()) }

// ZoneView is a zone as the API shows it (the delegation check's time
// may be null, which hcloud-go's schema cannot say).
type ZoneView struct {
	ID                       int64                        `json:"id"`
	Name                     string                       `json:"name"`
	Created                  time.Time                    `json:"created"`
	Mode                     string                       `json:"mode"`
	TTL                      int                          `json:"ttl"`
	Status                   string                       `json:"status"`
	RecordCount              int                          `json:"record_count"`
	Protection               schema.ZoneProtection        `json:"protection"`
	Labels                   map[string]string            `json:"labels"`
	PrimaryNameservers       []ZonePrimaryNameserver      `json:"primary_nameservers"`
	AuthoritativeNameservers ZoneAuthoritativeNameservers `json:"authoritative_nameservers"`
	Registrar                string                       `json:"registrar"`
}

// ZonePrimaryNameserver is a secondary zone's primary, as shown: the
// TSIG fields only when set.
type ZonePrimaryNameserver struct {
	Address       string `json:"address"`
	Port          int    `json:"port"`
	TSIGAlgorithm string `json:"tsig_algorithm,omitempty"`
	TSIGKey       string `json:"tsig_key,omitempty"`
}

// ZoneAuthoritativeNameservers are the nameservers assigned to a zone
// and those its parent delegates to.
type ZoneAuthoritativeNameservers struct {
	Assigned            []string   `json:"assigned"`
	Delegated           []string   `json:"delegated"`
	DelegationLastCheck *time.Time `json:"delegation_last_check"`
	DelegationStatus    string     `json:"delegation_status"`
}

// viewZone is a zone as the API shows it. fakecloud has no parent zones
// to ask, so a delegation is never checked (unknown, delegated to none)
// and the registrar is unknown: the answers the description gives for
// what is not yet known.
func viewZone(z *StoredZone) ZoneView {
	v := ZoneView{ID: z.ID, Name: z.Name, Created: z.Created, Mode: z.Mode, TTL: z.TTL, Status: cmp.Or(z.Status, "ok"),
		Protection: z.Protection, Labels: CopyLabels(z.Labels), PrimaryNameservers: []ZonePrimaryNameserver{},
		AuthoritativeNameservers: ZoneAuthoritativeNameservers{Assigned: slices.Clone(ZoneNameservers), Delegated: []string{}, DelegationStatus: "unknown"},
		Registrar:                "unknown"}
	for _, p := range z.PrimaryNameservers {
		v.PrimaryNameservers = append(v.PrimaryNameservers, ZonePrimaryNameserver(p))
	}
	for _, r := range z.RRSets {
		v.RecordCount += len(r.Records)
	}
	return v
}

// findZone is the zone with an ID, or with a name when idOrName is not
// a number.
func (w *project) findZone(idOrName string) (*StoredZone, *apierr.Error) {
	if id, err := strconv.ParseInt(idOrName, 10, 64); err == nil {
		return zones.find(w, id)
	}
	if z, ok := zones.table(w).Find(func(z *StoredZone) bool { return z.Name == idOrName }); ok {
		return z, nil
	}
	return nil, apierr.NotFound("zone", idOrName)
}

// ZoneID is the ID of the zone with an ID or name.
func (t *Tx) ZoneID(idOrName string) (int64, *apierr.Error) {
	z, err := t.w.findZone(idOrName)
	if err != nil {
		return 0, err
	}
	return z.ID, nil
}

// Zone is the zone with an ID or name.
func (t *Tx) Zone(idOrName string) (ZoneView, *apierr.Error) {
	z, err := t.w.findZone(idOrName)
	if err != nil {
		return ZoneView{}, err
	}
	return viewZone(z), nil
}

// Zones lists the zones a query selects, by mode when given, one page of
// them, and how many it selects in all.
func (t *Tx) Zones(q listing.Query, mode string) ([]ZoneView, int, *apierr.Error) {
	if mode != "" && mode != "primary" && mode != "secondary" {
		return nil, 0, apierr.InvalidField("mode", "%q is not one of primary, secondary", mode)
	}
	items := slices.DeleteFunc(zones.table(t.w).All(), func(z *StoredZone) bool {
		return !q.Keeps(z.Name, z.Labels) || (mode != "" && z.Mode != mode)
	})
	keys := listing.ByIDNameCreated(func(z *StoredZone) int64 { return z.ID },
		func(z *StoredZone) string { return z.Name }, func(z *StoredZone) int64 { return z.Created.Unix() })
	return listing.Page(items, q, keys, viewZone)
}

// checkZoneName accepts a registrable domain in lower case with no
// final dot: a name directly under a public suffix, as the description
// says ("subdomains are not supported"), in Punycode.
func (w *project) checkZoneName(f *apierr.Fields, name string) {
	switch {
	case name == "":
		f.Add("name", "is required")
	case len(name) > 255:
		f.Add("name", "is longer than 255 characters")
	case strings.HasSuffix(name, "."):
		f.Add("name", "must not end with a dot")
	case name != strings.ToLower(name):
		f.Add("name", "must be in lower case")
	case !HostnameRe.MatchString(name):
		f.Add("name", "%q is not a valid domain name (internationalised names must be in Punycode)", name)
	default:
		suffix, icann := name[strings.LastIndex(name, ".")+1:], true
		if w.publicSuffix != nil {
			suffix, icann = w.publicSuffix(name)
		}
		rest, under := strings.CutSuffix(name, "."+suffix)
		switch {
		case !icann || !under || rest == "":
			f.Add("name", "%q does not end in a well-known public suffix", name)
		case strings.Contains(rest, "."):
			apex := rest[strings.LastIndex(rest, ".")+1:] + "." + suffix
			f.Add("name", "%q is a subdomain of %q; only names directly under a public suffix (here %q) are supported", name, apex, suffix)
		}
	}
}

// checkTTL accepts a TTL from 60 to 2147483647 seconds.
func checkTTL(f *apierr.Fields, field string, ttl int) {
	if ttl < minTTL || ttl > maxTTL {
		f.Add(field, "must be between %d and %d, not %d", minTTL, maxTTL, ttl)
	}
}

// String names a zone in messages.
func (z *StoredZone) String() string { return fmt.Sprintf("zone %d (%s)", z.ID, z.Name) }
