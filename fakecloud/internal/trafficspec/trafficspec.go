// Package trafficspec describes what fakecloud's load balancers should
// serve: the world writes it, the data plane (package lbtraffic) serves
// it. It is data only.
package trafficspec

import (
	"net/netip"
	"time"
)

// LoadBalancer is what one load balancer should serve.
type LoadBalancer struct {
	ID        int64
	Addr      netip.Addr
	Algorithm string // round_robin (default) or least_connections
	Services  []Service
	Targets   []Target
}

// Target is where traffic may go.
type Target struct {
	Key  string     // identity, e.g. "server:42": health and sticky cookies follow it
	Addr netip.Addr // the address dialled, with the service's destination port
}

// Service is one listen port.
type Service struct {
	Protocol        string // tcp, http or https
	ListenPort      int
	DestinationPort int
	ProxyProtocol   bool
	StickySessions  bool
	CookieName      string        // default HCLBSTICKY
	CookieLifetime  time.Duration // default 300s
	RedirectHTTP    bool          // https: port 80 answers with a redirect
	TLSNames        []string      // https: names of the certificate served
	// TLS are the uploaded certificates of an https service, served as
	// they are; without, a self-signed one for TLSNames (managed ones).
	TLS         []TLSPair
	HealthCheck HealthCheck
	// Forced maps a target key to a status a script set; it wins over the
	// checks.
	Forced map[string]string
}

// TLSPair is an uploaded certificate: its ID, PEM chain and key.
type TLSPair struct {
	ID         int64
	Chain, Key string
}

// HealthCheck says how targets are probed.
type HealthCheck struct {
	Protocol    string // tcp, http or https
	Port        int
	Interval    time.Duration
	Timeout     time.Duration
	Retries     int // failures in a row that make a target unhealthy, and successes that heal it
	Domain      string
	Path        string
	Response    string   // the body must contain it, if set
	StatusCodes []string // e.g. "2??", "301"; default 2?? and 3??
}

// Health is a target's checked health for one service: its status and,
// when unhealthy, why (changelog 2026-08-17 "Load Balancer health check
// details"): one of unspecified, layer4_no_connection, layer4_timeout,
// layer7_timeout, unexpected_http_status (with the status code) and
// unexpected_http_content.
type Health struct {
	Status         string
	Detail         string
	HTTPStatusCode int
}

// Counters are what a load balancer has carried since the data plane
// began serving it, at a moment: connections accepted and open, HTTP
// requests, and bytes in from clients and out to them.
type Counters struct {
	At                                       time.Time
	Connections, Requests, BytesIn, BytesOut uint64
	Open                                     int64
	// Since is the load balancer's first sample: before it nothing was
	// counted; between it and the oldest sample kept, the history is lost.
	Since time.Time
}
