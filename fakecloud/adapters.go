package fakecloud

import (
	"net/http"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// The adapters turn a typed operation of the world into an endpoint: they
// read the path's {id} and decode the body (the world sees neither), call
// the operation, and wrap its result in the API's envelope.

// get serves GET of one resource (or a DELETE that answers with an
// action), answered 200 or the status given.
func get[V any](op func(*world.Tx, int64) (V, *apierr.Error), wrap func(V) any, status ...int) apiHandler {
	code := http.StatusOK
	if len(status) > 0 {
		code = status[0]
	}
	return func(c *call) (int, any, *apierr.Error) {
		id, err := c.id("id")
		if err != nil {
			return 0, nil, err
		}
		v, err := op(c.tx, id)
		if err != nil {
			return 0, nil, err
		}
		return code, wrap(v), nil
	}
}

// create serves POST of a new resource.
func create[R, V any](op func(*world.Tx, R) (V, *apierr.Error), wrap func(V) any) apiHandler {
	return func(c *call) (int, any, *apierr.Error) {
		var req R
		if err := c.decode(&req); err != nil {
			return 0, nil, err
		}
		v, err := op(c.tx, req)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusCreated, wrap(v), nil
	}
}

// update serves PUT of one resource of a kind, which is looked up before
// the body is read.
func update[R, V any](kind string, op func(*world.Tx, int64, R) (V, *apierr.Error), wrap func(V) any) apiHandler {
	return onExisting(kind, http.StatusOK, op, wrap)
}

// onExisting reads {id}, answers not_found for a missing resource of the
// kind whatever the body holds, then decodes the body, runs op and
// answers status.
func onExisting[R, V any](kind string, status int, op func(*world.Tx, int64, R) (V, *apierr.Error), wrap func(V) any) apiHandler {
	return func(c *call) (int, any, *apierr.Error) {
		id, err := c.resourceID(kind)
		if err != nil {
			return 0, nil, err
		}
		var req R
		if err := c.decode(&req); err != nil {
			return 0, nil, err
		}
		v, err := op(c.tx, id, req)
		if err != nil {
			return 0, nil, err
		}
		return status, wrap(v), nil
	}
}

// del serves a DELETE answered 204.
func del(op func(*world.Tx, int64) *apierr.Error) apiHandler {
	return func(c *call) (int, any, *apierr.Error) {
		id, err := c.id("id")
		if err != nil {
			return 0, nil, err
		}
		if err := op(c.tx, id); err != nil {
			return 0, nil, err
		}
		return http.StatusNoContent, nil, nil
	}
}

// act serves POST /{family}/{id}/actions/{name}: the body is decoded
// before the resource is looked up.
func act[R any](op func(*world.Tx, int64, R) (schema.Action, *apierr.Error)) apiHandler {
	return func(c *call) (int, any, *apierr.Error) {
		var req R
		if err := c.decode(&req); err != nil {
			return 0, nil, err
		}
		id, err := c.id("id")
		if err != nil {
			return 0, nil, err
		}
		a, err := op(c.tx, id, req)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusCreated, actionGet{a}, nil
	}
}

// actOn serves an action on a resource of a kind that is looked up before
// the body is read, so a missing resource answers not_found whatever the
// body holds.
func actOn[R any](kind string, op func(*world.Tx, int64, R) (schema.Action, *apierr.Error)) apiHandler {
	return onExisting(kind, http.StatusCreated, op, oneAction)
}

// actOnBodyless serves an action that takes no body; one sent is ignored.
func actOnBodyless(kind string, op func(*world.Tx, int64) (schema.Action, *apierr.Error)) apiHandler {
	return func(c *call) (int, any, *apierr.Error) {
		id, err := c.id("id")
		if err != nil {
			return 0, nil, err
		}
		a, err := op(c.tx, id)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusCreated, actionGet{a}, nil
	}
}
