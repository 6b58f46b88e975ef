package world

import (
	"fmt"
	"strings"

	"github.com/miekg/dns"
)

// A zone's publishing to the nameservers can be scripted (the event
// set_zone_status): stuck while updating, the nameservers keep serving
// the zone as it was; failed, they answer nothing for it.

// setZoneStatus applies a set_zone_status event.
func (w *project) setZoneStatus(e Event) error {
	var z *StoredZone
	if e.ZoneName != "" {
		found, ok := zones.table(w).Find(func(z *StoredZone) bool { return z.Name == e.ZoneName })
		if !ok {
			return fmt.Errorf("zone_name: no zone is named %q", e.ZoneName)
		}
		z = found
	} else {
		found, ok := zones.table(w).Get(e.Zone)
		if !ok {
			return fmt.Errorf("zone: zone %d does not exist", e.Zone)
		}
		z = found
	}
	switch e.Status {
	case "updating":
		if z.Status != "updating" {
			var b strings.Builder
			for _, rr := range zoneRRs(z) {
				b.WriteString(rr.String() + "\n")
			}
			z.Published = b.String()
		}
		z.Status = "updating"
	case "error":
		z.Status, z.Published = "error", ""
	default:
		z.Status, z.Published = "", ""
	}
	return nil
}

// servedRRs are the records the nameservers serve for a primary zone:
// as the API holds them, as they were when its publishing got stuck, or
// none (no SOA: the nameserver answers SERVFAIL) when it failed.
func servedRRs(z *StoredZone) []dns.RR {
	switch z.Status {
	case "error":
		return nil
	case "updating":
		var out []dns.RR
		zp := dns.NewZoneParser(strings.NewReader(z.Published), z.Name+".", "")
		for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
			out = append(out, rr)
		}
		return out
	}
	return zoneRRs(z)
}
