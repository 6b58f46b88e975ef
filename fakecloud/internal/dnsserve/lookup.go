package dnsserve

import (
	"github.com/miekg/dns"
)

// maxChain bounds the CNAMEs followed within a zone for one query.
const maxChain = 8

// result is the outcome of a lookup in one zone, before it becomes a message.
type result struct {
	rcode  int
	aa     bool
	answer []dns.RR
	ns     []dns.RR
	extra  []dns.RR
}

// lookup answers name and qtype from the zone (RFC 1034 §4.3.2 step 3):
// referral, exact answer, CNAME chain, wildcard synthesis or negative answer.
func (ix *index) lookup(name string, qtype uint16) result {
	res := result{rcode: dns.RcodeSuccess, aa: true}
	seen := make(map[string]bool)
	for {
		key := dns.CanonicalName(name)
		if cut := ix.cut(key, qtype); cut != "" {
			res.ns = ix.ofType(cut, dns.TypeNS)
			res.extra = ix.glue(res.ns)
			res.aa = len(res.answer) > 0 // a CNAME from this zone is still ours
			return res
		}
		rrs := ix.sets[key]
		if !ix.names[key] {
			w := ix.wildcard(key)
			if w == "" {
				res.rcode = dns.RcodeNameError
				res.ns = ix.negativeSOA()
				return res
			}
			rrs = renamed(ix.sets[w], name)
		}
		if qtype == dns.TypeANY && len(rrs) > 0 {
			res.answer = append(res.answer, rrs...)
			return res
		}
		if match := filterType(rrs, qtype); len(match) > 0 {
			res.answer = append(res.answer, match...)
			return res
		}
		cname := filterType(rrs, dns.TypeCNAME)
		if len(cname) == 0 || qtype == dns.TypeANY {
			res.ns = ix.negativeSOA()
			return res
		}
		res.answer = append(res.answer, cname[0])
		seen[key] = true
		target := cname[0].(*dns.CNAME).Target
		tkey := dns.CanonicalName(target)
		if len(seen) >= maxChain || seen[tkey] || !dns.IsSubDomain(ix.origin, tkey) {
			return res // a loop, too long a chain, or the resolver's to follow
		}
		name = target
	}
}

func filterType(rrs []dns.RR, t uint16) []dns.RR {
	var out []dns.RR
	for _, rr := range rrs {
		if rr.Header().Rrtype == t {
			out = append(out, rr)
		}
	}
	return out
}
