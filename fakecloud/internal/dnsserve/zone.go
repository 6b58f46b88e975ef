package dnsserve

import (
	"github.com/miekg/dns"
)

// Zone is one zone as served: its origin (an FQDN in lower case, ending in a
// dot) and every record in it, its SOA and apex NS included, with absolute
// owner names.
type Zone struct {
	Origin  string
	Records []dns.RR
	// Version names the records: a zone of the same origin and version
	// has the same records, so the server reuses what it built from them.
	// "": build it for every query.
	Version string
}

// Source returns the zone a name lies within (the longest origin that is the
// name or one of its parents), or false. The name it is given is absolute
// and in lower case. It is called once per query, and the
// answer is built from what it returns alone (one consistent view).
type Source func(name string) (Zone, bool)

// index is one zone arranged for lookups; built per query, never mutated
// after, and it never mutates the records it holds.
type index struct {
	origin  string
	records []dns.RR            // the records inside origin, in zone order
	sets    map[string][]dns.RR // canonical owner -> records in zone order
	names   map[string]bool     // every name that exists, empty non-terminals included
	soa     *dns.SOA
}

func newIndex(z Zone) *index {
	ix := &index{
		origin: dns.CanonicalName(z.Origin),
		sets:   make(map[string][]dns.RR),
		names:  make(map[string]bool),
	}
	ix.names[ix.origin] = true
	for _, rr := range z.Records {
		owner := dns.CanonicalName(rr.Header().Name)
		if !dns.IsSubDomain(ix.origin, owner) {
			continue
		}
		if soa, ok := rr.(*dns.SOA); ok && owner == ix.origin && ix.soa == nil {
			ix.soa = soa
		}
		ix.records = append(ix.records, rr)
		ix.sets[owner] = append(ix.sets[owner], rr)
		for n := owner; n != ix.origin && !ix.names[n]; n = parent(n) {
			ix.names[n] = true
		}
	}
	return ix
}

// parent is the name one label up; the root's parent is the root.
func parent(name string) string {
	i, end := dns.NextLabel(name, 0)
	if end {
		return "."
	}
	return name[i:]
}

// ofType returns the records at owner of type t.
func (ix *index) ofType(owner string, t uint16) []dns.RR {
	return filterType(ix.sets[owner], t)
}

// cut returns the highest delegation point (an NS RRset below the origin) at
// or above name, or "". A DS query at the cut itself is the parent's to
// answer, so the cut does not count for it.
func (ix *index) cut(name string, qtype uint16) string {
	var path []string // name's ancestors below the origin, name first
	for n := name; n != ix.origin && n != "."; n = parent(n) {
		path = append(path, n)
	}
	for i := len(path) - 1; i >= 0; i-- {
		n := path[i]
		if !ix.names[n] {
			return "" // nothing lies below a name that does not exist
		}
		if i == 0 && qtype == dns.TypeDS {
			return ""
		}
		if len(ix.ofType(n, dns.TypeNS)) > 0 {
			return n
		}
	}
	return ""
}

// wildcard returns the wildcard name that covers a name that does not
// exist (*.<closest encloser>), or "".
func (ix *index) wildcard(name string) string {
	ce := parent(name)
	for !ix.names[ce] && ce != "." {
		ce = parent(ce)
	}
	if w := "*." + ce; ix.names[w] {
		return w
	}
	return ""
}

// glue returns the A and AAAA records in the zone for the targets of ns.
func (ix *index) glue(ns []dns.RR) []dns.RR {
	var out []dns.RR
	seen := make(map[string]bool)
	for _, rr := range ns {
		target := dns.CanonicalName(rr.(*dns.NS).Ns)
		if seen[target] || !dns.IsSubDomain(ix.origin, target) {
			continue
		}
		seen[target] = true
		out = append(out, ix.ofType(target, dns.TypeA)...)
		out = append(out, ix.ofType(target, dns.TypeAAAA)...)
	}
	return out
}

// negativeSOA is the apex SOA for a negative answer, its TTL capped at its
// MINIMUM field (RFC 2308 §3).
func (ix *index) negativeSOA() []dns.RR {
	soa := dns.Copy(ix.soa).(*dns.SOA)
	soa.Hdr.Ttl = min(soa.Hdr.Ttl, soa.Minttl)
	return []dns.RR{soa}
}

// renamed copies rrs with their owner replaced by name (wildcard synthesis).
func renamed(rrs []dns.RR, name string) []dns.RR {
	out := make([]dns.RR, len(rrs))
	for i, rr := range rrs {
		out[i] = dns.Copy(rr)
		out[i].Header().Name = name
	}
	return out
}
