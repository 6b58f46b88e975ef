package hcloudapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
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
	r.Post("/networks", s.serve(create((*Tx).CreateNetwork, func(n schema.Network) any { return networkGet{n} })))
	r.Get("/networks/{id}", s.serve(get((*Tx).Network, func(n schema.Network) any { return networkGet{n} })))
	r.Put("/networks/{id}", s.serve(update("network", (*Tx).UpdateNetwork, func(n schema.Network) any { return networkGet{n} })))
	r.Delete("/networks/{id}", s.serve(del((*Tx).DeleteNetwork)))
	s.actionRoutes(r, "networks", map[string]apiHandler{
		"add_subnet":        act((*Tx).AddSubnet),
		"delete_subnet":     act((*Tx).DeleteSubnet),
		"add_route":         act((*Tx).AddRoute),
		"delete_route":      act((*Tx).DeleteRoute),
		"change_ip_range":   act((*Tx).ChangeIPRange),
		"change_protection": act((*Tx).ChangeNetworkProtection),
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
