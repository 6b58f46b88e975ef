package hcloudapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/catalog"
)

// mountPricing serves GET /pricing.
func (s *Server) mountPricing(r chi.Router) {
	r.Get("/pricing", s.serve(func(c *call) (int, any, *apiError) {
		return http.StatusOK, map[string]catalog.Pricing{"pricing": c.tx.Catalog().Pricing()}, nil
	}))
}
