package hcloudapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

type primaryIPGet struct {
	PrimaryIP schema.PrimaryIP `json:"primary_ip"`
}

type primaryIPList struct {
	PrimaryIPs []schema.PrimaryIP `json:"primary_ips"`
	Meta       listMeta           `json:"meta"`
}

// mountPrimaryIPs serves the primary IPs and their assign and unassign
// actions, which move a primary IP between servers as the Console does.
func (s *Server) mountPrimaryIPs(r chi.Router) {
	wrap := func(p schema.PrimaryIP) any { return primaryIPGet{p} }
	s.actionRoutes(r, "primary_ips", map[string]apiHandler{
		"assign":   actOn("primary_ip", (*world.Tx).AssignPrimaryIP),
		"unassign": actOnBodyless("primary_ip", (*world.Tx).UnassignPrimaryIP),
	})
	r.Post("/primary_ips", s.serve(create((*world.Tx).CreatePrimaryIP, func(v world.PrimaryIPCreated) any { return v })))
	r.Delete("/primary_ips/{id}", s.serve(del((*world.Tx).DeletePrimaryIP)))
	r.Put("/primary_ips/{id}", s.serve(update("primary_ip", (*world.Tx).UpdatePrimaryIP, wrap)))
	r.Get("/primary_ips", s.serve(func(c *call) (int, any, *apiError) {
		q, err := parseList(c.r)
		if err != nil {
			return 0, nil, err
		}
		page, total, err := c.tx.PrimaryIPs(q, c.r.URL.Query().Get("ip"))
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, primaryIPList{PrimaryIPs: page, Meta: metaOf(c.header, c.r, total, q)}, nil
	}))
	r.Get("/primary_ips/{id}", s.serve(get((*world.Tx).PrimaryIP, wrap)))
}
