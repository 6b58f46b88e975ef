package fakecloud

import (
	"net/http"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

type actionList struct {
	Actions []schema.Action `json:"actions"`
	Meta    listMeta        `json:"meta"`
}

type actionGet struct {
	Action schema.Action `json:"action"`
}

// listAllActions serves GET /actions, which needs at least one id.
func listAllActions(c *call) (int, any, *apierr.Error) {
	if len(c.r.URL.Query()["id"]) == 0 {
		return 0, nil, apierr.InvalidField("id", "at least one id is required")
	}
	return c.listActions("", 0)
}

// listActions serves GET /{family}/actions: the actions naming a resource
// of the kind.
func listActions(kind string) apiHandler {
	return func(c *call) (int, any, *apierr.Error) { return c.listActions(kind, 0) }
}

// getAction serves GET /{family}/actions/{action} (/actions/{action}
// without a kind).
func getAction(kind string) apiHandler {
	return func(c *call) (int, any, *apierr.Error) { return c.getAction(kind, 0) }
}

// listResourceActions serves GET /{family}/{id}/actions.
func listResourceActions(kind string) apiHandler {
	return func(c *call) (int, any, *apierr.Error) {
		id, err := c.resourceID(kind)
		if err != nil {
			return 0, nil, err
		}
		return c.listActions(kind, id)
	}
}

// getResourceAction serves GET /{family}/{id}/actions/{action}.
func getResourceAction(kind string) apiHandler {
	return func(c *call) (int, any, *apierr.Error) {
		id, err := c.resourceID(kind)
		if err != nil {
			return 0, nil, err
		}
		return c.getAction(kind, id)
	}
}

// unknownAction answers POST /{family}/{id}/actions/{action} for an
// action fakecloud does not simulate.
func unknownAction(family string) apiHandler {
	return func(c *call) (int, any, *apierr.Error) {
		return 0, nil, apierr.Errorf(apierr.CodeNotFound, "%s action %q does not exist or is not simulated by fakecloud", family, c.r.PathValue("action"))
	}
}

func oneAction(a schema.Action) any { return actionGet{a} }

// asIs sends an operation's result as the whole answer.
func asIs[T any](v T) any { return v }

// resourceID reads {id} and checks that the resource exists.
func (c *call) resourceID(kind string) (int64, *apierr.Error) {
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
func (c *call) getAction(kind string, resource int64) (int, any, *apierr.Error) {
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
func (c *call) listActions(kind string, resource int64) (int, any, *apierr.Error) {
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
