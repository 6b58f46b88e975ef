package hcloudapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// actionFamilies maps a URL family to the resource type its actions name.
var actionFamilies = map[string]string{
	"servers": "server", "load_balancers": "load_balancer", "networks": "network",
	"certificates": "certificate", "primary_ips": "primary_ip", "images": "image",
	"floating_ips": "floating_ip", "volumes": "volume", "firewalls": "firewall",
}

type actionList struct {
	Actions []schema.Action `json:"actions"`
	Meta    listMeta        `json:"meta"`
}

type actionGet struct {
	Action schema.Action `json:"action"`
}

func (s *Server) mountActions(r chi.Router) {
	r.Get("/actions", s.serve(func(c *call) (int, any, *apiError) {
		if len(c.r.URL.Query()["id"]) == 0 {
			return 0, nil, invalidField("id", "at least one id is required")
		}
		return c.listActions("", 0)
	}))
	r.Get("/actions/{action}", s.serve(func(c *call) (int, any, *apiError) {
		return c.getAction("", 0)
	}))
	for family, kind := range actionFamilies {
		r.Get("/"+family+"/actions", s.serve(func(c *call) (int, any, *apiError) {
			return c.listActions(kind, 0)
		}))
		r.Get("/"+family+"/actions/{action}", s.serve(func(c *call) (int, any, *apiError) {
			return c.getAction(kind, 0)
		}))
		r.Get("/"+family+"/{id}/actions", s.serve(func(c *call) (int, any, *apiError) {
			id, err := c.resourceID(kind)
			if err != nil {
				return 0, nil, err
			}
			return c.listActions(kind, id)
		}))
		r.Get("/"+family+"/{id}/actions/{action}", s.serve(func(c *call) (int, any, *apiError) {
			id, err := c.resourceID(kind)
			if err != nil {
				return 0, nil, err
			}
			return c.getAction(kind, id)
		}))
	}
}

// resourceID reads {id} and checks that the resource exists.
func (c *call) resourceID(kind string) (int64, *apiError) {
	id, err := c.id("id")
	if err != nil {
		return 0, err
	}
	if err := c.tx.Exists(kind, id); err != nil {
		return 0, err
	}
	return id, nil
}

// getAction serves one action, limited to a kind and resource when given.
func (c *call) getAction(kind string, resource int64) (int, any, *apiError) {
	id, err := c.id("action")
	if err != nil {
		return 0, nil, err
	}
	a, err := c.tx.Action(id, kind, resource)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, actionGet{Action: a}, nil
}

// listActions serves a filtered, sorted, paginated list of actions.
func (c *call) listActions(kind string, resource int64) (int, any, *apiError) {
	q, err := parseList(c.r)
	if err != nil {
		return 0, nil, err
	}
	query := c.r.URL.Query()
	page, total, err := c.tx.Actions(q, world.ActionFilter{Kind: kind, Resource: resource, IDs: query["id"], Statuses: query["status"]})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, actionList{Actions: page, Meta: metaOf(c.header, c.r, total, q)}, nil
}
