package hcloudapi

import (
	"net/http"
	"slices"

	"github.com/go-chi/chi/v5"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
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
	if !c.w.exists(kind, id) {
		return 0, notFound(kind, id)
	}
	return id, nil
}

func (w *liveWorld) exists(kind string, id int64) bool {
	var ok bool
	switch kind {
	case "server":
		_, ok = w.servers.get(id)
	case "load_balancer":
		_, ok = w.loadBalancers.get(id)
	case "network":
		_, ok = w.networks.get(id)
	case "certificate":
		_, ok = w.certificates.get(id)
	case "primary_ip":
		_, ok = w.primaryIPs.get(id)
	}
	return ok
}

// getAction serves one action, limited to a kind and resource when given.
func (c *call) getAction(kind string, resource int64) (int, any, *apiError) {
	id, err := c.id("action")
	if err != nil {
		return 0, nil, err
	}
	a, ok := c.w.actions.get(id)
	if !ok || (kind != "" && !actionTouches(a, kind, resource)) {
		return 0, nil, notFound("action", id)
	}
	c.w.polled(a)
	c.w.settle()
	return http.StatusOK, actionGet{Action: c.w.viewAction(a)}, nil
}

// listActions serves a filtered, sorted, paginated list of actions.
func (c *call) listActions(kind string, resource int64) (int, any, *apiError) {
	q, err := parseList(c.r)
	if err != nil {
		return 0, nil, err
	}
	var f fieldErrors
	var ids []int64
	for _, v := range c.r.URL.Query()["id"] {
		id, ok := parseID(v)
		switch {
		case !ok:
			f.add("id", "%q is not a valid ID", v)
		case slices.Contains(ids, id):
			f.add("id", "%d is listed twice", id)
		}
		ids = append(ids, id)
	}
	statuses := c.r.URL.Query()["status"]
	for _, st := range statuses {
		if st != "running" && st != "success" && st != "error" {
			f.add("status", "%q is not one of running, success, error", st)
		}
	}
	if err := f.err(); err != nil {
		return 0, nil, err
	}
	var items []*action
	if len(ids) > 0 {
		for _, id := range ids {
			if a, ok := c.w.actions.get(id); ok {
				items = append(items, a)
			}
		}
		slices.SortFunc(items, func(a, b *action) int { return int(a.ID - b.ID) })
	} else {
		items = c.w.actions.all()
	}
	for _, a := range items {
		c.w.polled(a)
	}
	c.w.settle()
	items = slices.DeleteFunc(c.w.listed(items), func(a *action) bool {
		return (kind != "" && !actionTouches(a, kind, resource)) ||
			(len(statuses) > 0 && !slices.Contains(statuses, a.Status))
	})
	if len(q.Sort) > 0 {
		tieOrder(c.w, items, func(a *action) int64 { return a.ID })
	}
	if err := applySort(items, q.Sort, actionSortKeys); err != nil {
		return 0, nil, err
	}
	page, meta := paginate(c.header, c.r, items, q)
	out := actionList{Actions: make([]schema.Action, 0, len(page)), Meta: meta}
	for _, a := range page {
		out.Actions = append(out.Actions, c.w.viewAction(a))
	}
	return http.StatusOK, out, nil
}
