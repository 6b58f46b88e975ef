package fakecloud

import (
	"net/http"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// Zones are named by ID or name in their paths ({id_or_name}), and
// their RRSets by name and type; these adapters read both.

// maxRRSetsPerPage is an RRSet listing's largest page, as its
// description says.
const maxRRSetsPerPage = 100

type zoneGet struct {
	Zone world.ZoneView `json:"zone"`
}

type zoneList struct {
	Zones []world.ZoneView `json:"zones"`
	Meta  listMeta         `json:"meta"`
}

type rrsetGet struct {
	RRSet schema.ZoneRRSet `json:"rrset"`
}

type rrsetList struct {
	RRSets []schema.ZoneRRSet `json:"rrsets"`
	Meta   listMeta           `json:"meta"`
}

type zonefileGet struct {
	Zonefile string `json:"zonefile"`
}

func oneZone(z world.ZoneView) any     { return zoneGet{z} }
func oneRRSet(r schema.ZoneRRSet) any  { return rrsetGet{r} }
func oneZonefile(text string) any      { return zonefileGet{text} }
func zoneOf(c *call) string            { return c.r.PathValue("id_or_name") }
func rrsetOf(c *call) (string, string) { return c.r.PathValue("rr_name"), c.r.PathValue("rr_type") }

// listZones serves GET /zones: by name, mode and label selector, sorted
// and in pages.
func listZones(c *call) (int, any, *apierr.Error) {
	q, err := parseList(c.r)
	if err != nil {
		return 0, nil, err
	}
	page, total, err := c.tx.Zones(q, c.r.URL.Query().Get("mode"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, zoneList{Zones: page, Meta: metaOf(c.header, c.r, total, q)}, nil
}

// listRRSets serves GET /zones/{id_or_name}/rrsets: by name, types and
// label selector, sorted and in pages of up to 100.
func listRRSets(c *call) (int, any, *apierr.Error) {
	q, err := parseListUpTo(c.r, maxRRSetsPerPage)
	if err != nil {
		return 0, nil, err
	}
	page, total, err := c.tx.RRSets(zoneOf(c), q, c.r.URL.Query()["type"])
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, rrsetList{RRSets: page, Meta: metaOf(c.header, c.r, total, q)}, nil
}

// onZone serves a request on a zone that takes no body, answered 200 or
// the status given.
func onZone[V any](op func(*world.Tx, string) (V, *apierr.Error), wrap func(V) any, status ...int) apiHandler {
	code := http.StatusOK
	if len(status) > 0 {
		code = status[0]
	}
	return func(c *call) (int, any, *apierr.Error) {
		v, err := op(c.tx, zoneOf(c))
		if err != nil {
			return 0, nil, err
		}
		return code, wrap(v), nil
	}
}

// zoneBody serves a request on a zone with a body: a missing zone
// answers not_found whatever the body holds.
func zoneBody[R, V any](op func(*world.Tx, string, R) (V, *apierr.Error), status int, wrap func(V) any) apiHandler {
	return func(c *call) (int, any, *apierr.Error) {
		if _, err := c.tx.ZoneID(zoneOf(c)); err != nil {
			return 0, nil, err
		}
		var req R
		if err := c.decode(&req); err != nil {
			return 0, nil, err
		}
		v, err := op(c.tx, zoneOf(c), req)
		if err != nil {
			return 0, nil, err
		}
		return status, wrap(v), nil
	}
}

// onRRSet serves a request on an RRSet that takes no body.
func onRRSet[V any](op func(*world.Tx, string, string, string) (V, *apierr.Error), wrap func(V) any, status int) apiHandler {
	return func(c *call) (int, any, *apierr.Error) {
		name, typ := rrsetOf(c)
		v, err := op(c.tx, zoneOf(c), name, typ)
		if err != nil {
			return 0, nil, err
		}
		return status, wrap(v), nil
	}
}

// rrsetBody serves a request on an RRSet with a body: a missing zone
// answers not_found whatever the body holds.
func rrsetBody[R, V any](op func(*world.Tx, string, string, string, R) (V, *apierr.Error), status int, wrap func(V) any) apiHandler {
	return func(c *call) (int, any, *apierr.Error) {
		if _, err := c.tx.ZoneID(zoneOf(c)); err != nil {
			return 0, nil, err
		}
		var req R
		if err := c.decode(&req); err != nil {
			return 0, nil, err
		}
		name, typ := rrsetOf(c)
		v, err := op(c.tx, zoneOf(c), name, typ, req)
		if err != nil {
			return 0, nil, err
		}
		return status, wrap(v), nil
	}
}

// zoneActions serves GET /zones/{id_or_name}/actions.
func zoneActions(c *call) (int, any, *apierr.Error) {
	id, err := c.tx.ZoneID(zoneOf(c))
	if err != nil {
		return 0, nil, err
	}
	return c.listActions("zone", id)
}

// zoneAction serves GET /zones/{id_or_name}/actions/{action}.
func zoneAction(c *call) (int, any, *apierr.Error) {
	id, err := c.tx.ZoneID(zoneOf(c))
	if err != nil {
		return 0, nil, err
	}
	return c.getAction("zone", id)
}
