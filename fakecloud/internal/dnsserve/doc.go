// Package dnsserve answers DNS queries for fakecloud's primary zones,
// authoritatively, over UDP and TCP on one port.
//
// It serves what a Source returns at the moment of each query: exact answers,
// CNAME chains within a zone, wildcards (RFC 4592), referrals with glue at
// delegations, negative answers with the SOA (RFC 2308) and full zone
// transfers (AXFR, and IXFR answered in full, over TCP).
//
// A CNAME chain is followed within its zone for at most 8 steps; a loop ends
// it with the records so far. A zone without an SOA is answered SERVFAIL.
//
// Choices where the RFCs leave room:
//   - ANY returns every RRset at the name (not the RFC 8482 minimal answer),
//     so a test sees what the API wrote.
//   - AXFR over UDP is NOTIMP; IXFR over UDP is answered with the SOA alone,
//     which tells the client to retry over TCP (RFC 1995 §2), and over TCP
//     with the whole zone, as AXFR (RFC 1995 allows it).
//   - A negative answer's SOA TTL is the lesser of its own TTL and its
//     MINIMUM field (RFC 2308 §3).
//   - A query with an OPT record gets one back (advertising 1232 bytes);
//     a UDP answer is truncated, with TC set, to the client's EDNS0 size, or
//     to 512 bytes without one.
//   - A name in no zone, or a class other than IN, is REFUSED; an AXFR for a
//     name that is not a zone's origin is NOTAUTH.
//
// It does not do DNSSEC (no signatures, NSEC or DO handling), NOTIFY, dynamic
// update, TSIG or recursion; opcodes other than QUERY are NOTIMP. Beyond glue,
// there is no additional-section processing (MX and SRV targets are not added).
package dnsserve
