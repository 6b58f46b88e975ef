package fakecloud

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/contract"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// routes builds the handler: the API under /v1 and / (observed,
// authenticated, rate limited, permitted, held to the body limit, a
// well-formed query and the OpenAPI description, then subject to fault
// rules), the admin API under /_fakecloud/, each server's metadata service
// under /metadata/, the Robot webservice under /robot (observed, then
// its own authentication, limits and fault rules) and Prometheus metrics
// on /metrics. The API's endpoints are listed in apiRoutes (routes.go).
func (s *Server) routes() http.Handler {
	api := chi.NewRouter()
	api.NotFound(func(w http.ResponseWriter, r *http.Request) {
		wire.WriteError(w, apierr.Errorf(apierr.CodeNotFound, "no such endpoint: %s %s", r.Method, r.URL.Path))
	})
	api.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		wire.WriteError(w, apierr.Errorf(apierr.CodeMethodNotAllowed, "method %s is not allowed on %s", r.Method, r.URL.Path))
	})
	for _, rt := range apiRoutes() {
		api.Method(rt.method, rt.pattern, s.serve(rt.h))
	}

	s.api = api

	var h http.Handler = api
	for i := len(s.opts.Middleware) - 1; i >= 0; i-- {
		h = s.opts.Middleware[i](h)
	}
	h = s.observe(s.authenticate(s.rateLimit(s.permit(wire.LimitBody(wire.APIBodyLimit)(wire.StrictQuery(wire.APIMultiValued)(checkContract(contract.Default())(s.injectFaults(h))))))))

	root := chi.NewRouter()
	root.Handle("/metrics", s.metricsHandler())
	root.Mount("/_fakecloud", s.adminRoutes())
	root.Mount("/metadata", s.metadataRoutes())
	root.Mount(robotPrefix, s.observe(s.robot))
	s.sourceMetadataRoutes(root)
	root.Mount("/v1", h)
	root.Mount("/", h)
	return root
}

// apiHandler serves one endpoint: it returns a status and a body to encode,
// or an API error. A nil body with 204 sends no body.
type apiHandler func(c *call) (int, any, *apierr.Error)

// serve runs h as one request of the world, after settling due actions,
// and encodes the answer before the world's lock is released. A panic in
// h releases the lock and goes on to observe, which answers server_error.
func (s *Server) serve(h apiHandler) http.HandlerFunc {
	return func(rw http.ResponseWriter, r *http.Request) {
		var status int
		var body []byte
		var aerr *apierr.Error
		started := s.world.Run(func(tx *world.Tx) bool {
			var v any
			status, v, aerr = h(&call{tx: tx, r: r, header: rw.Header()})
			if aerr != nil {
				return false
			}
			if v != nil {
				var buf bytes.Buffer
				enc := json.NewEncoder(&buf)
				enc.SetEscapeHTML(false)
				if err := enc.Encode(v); err != nil {
					aerr = apierr.Errorf(apierr.CodeServerError, "encode response: %v", err)
				}
				body = buf.Bytes()
			}
			return r.Method != http.MethodGet
		})
		if n, ok := r.Context().Value(noteKey{}).(*requestNote); ok && aerr == nil {
			n.actions = started
		}
		switch {
		case aerr != nil:
			wire.WriteError(rw, aerr)
		case body == nil:
			rw.WriteHeader(status)
		default:
			rw.Header().Set("Content-Type", "application/json")
			rw.WriteHeader(status)
			_, _ = rw.Write(body)
		}
	}
}
