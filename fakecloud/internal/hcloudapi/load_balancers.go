package hcloudapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

type lbGet struct {
	LoadBalancer world.LoadBalancerView `json:"load_balancer"`
}

type lbList struct {
	LoadBalancers []world.LoadBalancerView `json:"load_balancers"`
	Meta          listMeta                 `json:"meta"`
}

func (s *Server) mountLoadBalancers(r chi.Router) {
	wrap := func(v world.LoadBalancerView) any { return lbGet{v} }
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
	r.Post("/load_balancers", s.serve(create((*world.Tx).CreateLoadBalancer, func(v world.LoadBalancerCreated) any { return v })))
	r.Get("/load_balancers/{id}", s.serve(get((*world.Tx).LoadBalancer, wrap)))
	r.Put("/load_balancers/{id}", s.serve(update("load_balancer", (*world.Tx).UpdateLoadBalancer, wrap)))
	r.Delete("/load_balancers/{id}", s.serve(get((*world.Tx).DeleteLoadBalancer, func(a schema.Action) any { return actionGet{a} }, http.StatusCreated)))
	s.actionRoutes(r, "load_balancers", map[string]apiHandler{
		"add_service":              actOn("load_balancer", (*world.Tx).AddService),
		"update_service":           actOn("load_balancer", (*world.Tx).UpdateService),
		"delete_service":           actOn("load_balancer", (*world.Tx).DeleteService),
		"add_target":               actOn("load_balancer", (*world.Tx).AddTarget),
		"remove_target":            actOn("load_balancer", (*world.Tx).RemoveTarget),
		"attach_to_network":        actOn("load_balancer", (*world.Tx).AttachLoadBalancerToNetwork),
		"detach_from_network":      actOn("load_balancer", (*world.Tx).DetachLoadBalancerFromNetwork),
		"change_algorithm":         actOn("load_balancer", (*world.Tx).ChangeAlgorithm),
		"change_type":              actOn("load_balancer", (*world.Tx).ChangeLoadBalancerType),
		"enable_public_interface":  actOnBodyless("load_balancer", (*world.Tx).EnablePublicInterface),
		"disable_public_interface": actOnBodyless("load_balancer", (*world.Tx).DisablePublicInterface),
		"change_dns_ptr":           actOn("load_balancer", (*world.Tx).ChangeLoadBalancerDNSPtr),
		"change_protection":        actOn("load_balancer", (*world.Tx).ChangeLoadBalancerProtection),
	})
}
