package dnsserve

import (
	"github.com/miekg/dns"
)

const (
	// advertisedUDPSize is the EDNS0 payload size this server offers
	// (DNS Flag Day 2020).
	advertisedUDPSize = 1232
	// xfrChunk bounds the uncompressed size of the records in one AXFR
	// message, well under the 64 KiB a TCP message can hold.
	xfrChunk = 16 << 10
)

// respond builds the messages that answer req: one, or several for a zone
// transfer over TCP. It never mutates the records src returns.
func respond(req *dns.Msg, src *zones, tcp bool) []*dns.Msg {
	m := new(dns.Msg).SetReply(req)
	opt := req.IsEdns0()
	switch {
	case req.Opcode != dns.OpcodeQuery:
		m.Rcode = dns.RcodeNotImplemented
	case len(req.Question) != 1:
		m.Question = nil
		m.Rcode = dns.RcodeFormatError
	case opt != nil && opt.Version() != 0:
		m.Rcode = dns.RcodeBadVers // RFC 6891 §6.1.3
	case req.Question[0].Qclass != dns.ClassINET:
		m.Rcode = dns.RcodeRefused
	case req.Question[0].Qtype == dns.TypeAXFR || req.Question[0].Qtype == dns.TypeIXFR:
		return transfer(m, opt, src, tcp)
	default:
		query(m, src)
	}
	return []*dns.Msg{finish(m, opt, tcp)}
}

// zoneFor returns the zone q lies in, or sets m's rcode and returns nil.
func zoneFor(m *dns.Msg, src *zones) *index {
	ix, ok := src.find(dns.CanonicalName(m.Question[0].Name))
	if !ok {
		m.Rcode = dns.RcodeRefused
		return nil
	}
	if ix.soa == nil {
		m.Rcode = dns.RcodeServerFailure // a zone without an SOA cannot be served
		return nil
	}
	return ix
}

// query fills m with the answer to its question.
func query(m *dns.Msg, src *zones) {
	ix := zoneFor(m, src)
	if ix == nil {
		return
	}
	q := m.Question[0]
	res := ix.lookup(q.Name, q.Qtype)
	m.Rcode = res.rcode
	m.Authoritative = res.aa
	m.Answer, m.Ns, m.Extra = res.answer, res.ns, res.extra
}

// transfer answers AXFR, and IXFR in full (RFC 1995 allows it), over TCP:
// the SOA, every other record once, the SOA again, in messages of bounded
// size. Over UDP, AXFR is NOTIMP and IXFR gets the SOA alone, which tells
// the client to retry over TCP (RFC 1995 §2).
func transfer(m *dns.Msg, opt *dns.OPT, src *zones, tcp bool) []*dns.Msg {
	ix := zoneFor(m, src)
	switch {
	case ix == nil:
	case dns.CanonicalName(m.Question[0].Name) != ix.origin:
		m.Rcode = dns.RcodeNotAuth
	case !tcp && m.Question[0].Qtype == dns.TypeAXFR:
		m.Rcode = dns.RcodeNotImplemented
	case !tcp:
		m.Authoritative = true
		m.Answer = []dns.RR{ix.soa}
	default:
		return envelopes(m, opt, ix)
	}
	return []*dns.Msg{finish(m, opt, tcp)}
}

// envelopes splits the zone into AXFR messages, each a copy of head's header
// and question.
func envelopes(head *dns.Msg, opt *dns.OPT, ix *index) []*dns.Msg {
	var out []*dns.Msg
	var cur []dns.RR
	size := 0
	flush := func() {
		m := head.Copy()
		m.Authoritative = true
		m.Answer = cur
		out = append(out, finish(m, opt, true))
		cur, size = nil, 0
	}
	add := func(rr dns.RR) {
		n := dns.Len(rr)
		if size+n > xfrChunk && len(cur) > 0 {
			flush()
		}
		cur = append(cur, rr)
		size += n
	}
	add(ix.soa)
	for _, rr := range ix.records {
		if rr.Header().Rrtype != dns.TypeSOA || dns.CanonicalName(rr.Header().Name) != ix.origin {
			add(rr)
		}
	}
	add(ix.soa)
	flush()
	return out
}

// finish echoes an OPT record when the query had one and truncates the
// message to what the transport and the client's buffer allow.
func finish(m *dns.Msg, opt *dns.OPT, tcp bool) *dns.Msg {
	size := dns.MinMsgSize
	if opt != nil {
		o := &dns.OPT{Hdr: dns.RR_Header{Name: ".", Rrtype: dns.TypeOPT}}
		o.SetUDPSize(advertisedUDPSize)
		m.Extra = append(m.Extra, o)
		size = int(opt.UDPSize())
	}
	if tcp {
		size = dns.MaxMsgSize
	}
	m.Truncate(size)
	return m
}
