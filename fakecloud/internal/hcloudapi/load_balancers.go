package hcloudapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

type lbGet struct {
	LoadBalancer LoadBalancerView `json:"load_balancer"`
}

type lbList struct {
	LoadBalancers []LoadBalancerView `json:"load_balancers"`
	Meta          listMeta           `json:"meta"`
}

func (s *Server) mountLoadBalancers(r chi.Router) {
	wrap := func(v LoadBalancerView) any { return lbGet{v} }
	r.Get("/load_balancers", s.serve(func(c *call) (int, any, *apiError) {
		q, err := parseList(c.r)
		if err != nil {
			return 0, nil, err
		}
		page, total, err := c.tx.LoadBalancers(q)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, lbList{LoadBalancers: page, Meta: metaOf(c.header, c.r, total, q)}, nil
	}))
	r.Post("/load_balancers", s.serve(create((*Tx).CreateLoadBalancer, func(v LoadBalancerCreated) any { return v })))
	r.Get("/load_balancers/{id}", s.serve(get((*Tx).LoadBalancer, wrap)))
	r.Put("/load_balancers/{id}", s.serve(update("load_balancer", (*Tx).UpdateLoadBalancer, wrap)))
	r.Delete("/load_balancers/{id}", s.serve(get((*Tx).DeleteLoadBalancer, func(a schema.Action) any { return actionGet{a} }, http.StatusCreated)))
	s.actionRoutes(r, "load_balancers", map[string]apiHandler{
		"add_service":              actOn("load_balancer", (*Tx).AddService),
		"update_service":           actOn("load_balancer", (*Tx).UpdateService),
		"delete_service":           actOn("load_balancer", (*Tx).DeleteService),
		"add_target":               actOn("load_balancer", (*Tx).AddTarget),
		"remove_target":            actOn("load_balancer", (*Tx).RemoveTarget),
		"attach_to_network":        actOn("load_balancer", (*Tx).AttachLoadBalancerToNetwork),
		"detach_from_network":      actOn("load_balancer", (*Tx).DetachLoadBalancerFromNetwork),
		"change_algorithm":         actOn("load_balancer", (*Tx).ChangeAlgorithm),
		"change_type":              actOn("load_balancer", (*Tx).ChangeLoadBalancerType),
		"enable_public_interface":  actOnBodyless("load_balancer", (*Tx).EnablePublicInterface),
		"disable_public_interface": actOnBodyless("load_balancer", (*Tx).DisablePublicInterface),
		"change_dns_ptr":           actOn("load_balancer", (*Tx).ChangeLoadBalancerDNSPtr),
		"change_protection":        actOn("load_balancer", (*Tx).ChangeLoadBalancerProtection),
	})
}
