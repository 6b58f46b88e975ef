package fakecloud

import (
	"net/http"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
)

// Request limits beyond the body's (body_limit.go). The API's requests
// are short: the longest URL a client sends is a filter or a label
// selector of a few hundred bytes.
const (
	// maxURI is the longest request target (path and query) served; a
	// longer one is answered 414, as the API's front proxy answers, so a
	// huge label selector neither holds the world lock while it is matched
	// nor comes back in a Link header.
	maxURI = 8 << 10
	// maxHeaderBytes bounds the request line and headers; net/http answers
	// a longer one 431.
	maxHeaderBytes = 64 << 10
	// readTimeout bounds reading a whole request, body included, so a
	// slow-body client cannot hold a connection; idleTimeout closes idle
	// keep-alive connections.
	readTimeout = time.Minute
	idleTimeout = 2 * time.Minute
)

// limitURI answers a request whose target is longer than maxURI with 414
// and the error envelope.
func limitURI(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n := len(r.RequestURI); n > maxURI {
			wire.WriteErrorStatus(w, apierr.Errorf(apierr.CodeRequestTooLarge, "request URI of %d bytes is longer than %s", n, wire.Size(maxURI)), http.StatusRequestURITooLong)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// HTTPServer is an http.Server for s with fakecloud's request limits:
// headers, whole-request read time and idle keep-alive connections.
// Responses have no time limit, since a fault may hang one on purpose.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: readTimeout,
		IdleTimeout: idleTimeout, MaxHeaderBytes: maxHeaderBytes}
}
