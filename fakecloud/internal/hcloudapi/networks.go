package hcloudapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

type networkGet struct {
	Network schema.Network `json:"network"`
}

type networkList struct {
	Networks []schema.Network `json:"networks"`
	Meta     listMeta         `json:"meta"`
}

func (s *Server) mountNetworks(r chi.Router) {
	r.Get("/networks", s.serve(listNetworks))
	r.Post("/networks", s.serve(create((*world.Tx).CreateNetwork, func(n schema.Network) any { return networkGet{n} })))
	r.Get("/networks/{id}", s.serve(get((*world.Tx).Network, func(n schema.Network) any { return networkGet{n} })))
	r.Put("/networks/{id}", s.serve(update("network", (*world.Tx).UpdateNetwork, func(n schema.Network) any { return networkGet{n} })))
	r.Delete("/networks/{id}", s.serve(del((*world.Tx).DeleteNetwork)))
	s.actionRoutes(r, "networks", map[string]apiHandler{
		"add_subnet":        act((*world.Tx).AddSubnet),
		"delete_subnet":     act((*world.Tx).DeleteSubnet),
		"add_route":         act((*world.Tx).AddRoute),
		"delete_route":      act((*world.Tx).DeleteRoute),
		"change_ip_range":   act((*world.Tx).ChangeIPRange),
		"change_protection": act((*world.Tx).ChangeNetworkProtection),
	})
}

func listNetworks(c *call) (int, any, *apiError) {
	q, err := parseList(c.r)
	if err != nil {
		return 0, nil, err
	}
	page, total, err := c.tx.Networks(q)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, networkList{Networks: page, Meta: metaOf(c.header, c.r, total, q)}, nil
}
