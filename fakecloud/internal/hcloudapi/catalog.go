package hcloudapi

import (
	"cmp"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/catalog"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/listing"
)

// catalogEntry describes one read-only family of the catalogue.
type catalogEntry[T any] struct {
	family, single string // "server_types", "server_type"
	items          func(c *catalog.Catalog) []T
	id             func(T) int64
	name           func(T) string
	keep           func(c *call, item T) bool              // extra filters; nil keeps all
	labels         func(T) map[string]string               // non-nil: label_selector filters the list
	created        func(T) int64                           // non-nil: the list sorts by created too
	listExtra      func(c *catalog.Catalog) map[string]any // more top-level keys of the list response
}

// catalogList serves GET /{family}: the name filter, sort and pagination.
func catalogList[T any](e catalogEntry[T]) apiHandler {
	keys := listing.SortKeys[T]{
		"id":   func(a, b T) int { return cmp.Compare(e.id(a), e.id(b)) },
		"name": func(a, b T) int { return cmp.Compare(e.name(a), e.name(b)) },
	}
	if e.created != nil {
		keys["created"] = func(a, b T) int { return cmp.Compare(e.created(a), e.created(b)) }
	}
	return func(c *call) (int, any, *apierr.Error) {
		q, err := parseList(c.r)
		if err != nil {
			return 0, nil, err
		}
		items := slices.DeleteFunc(slices.Clone(e.items(c.tx.Catalog())), func(it T) bool {
			return (q.HasName && e.name(it) != q.Name) || (e.keep != nil && !e.keep(c, it)) ||
				(q.HasSelector && e.labels != nil && !q.Selector.Matches(e.labels(it)))
		})
		if err := listing.ApplySort(items, q.Sort, keys); err != nil {
			return 0, nil, err
		}
		page, meta := paginate(c.header, c.r, items, q)
		out := map[string]any{e.family: page, "meta": meta}
		if e.listExtra != nil {
			maps.Copy(out, e.listExtra(c.tx.Catalog()))
		}
		return http.StatusOK, out, nil
	}
}

// catalogGet serves GET /{family}/{id}.
func catalogGet[T any](e catalogEntry[T]) apiHandler {
	return func(c *call) (int, any, *apierr.Error) {
		id, err := c.id("id")
		if err != nil {
			return 0, nil, err
		}
		for _, it := range e.items(c.tx.Catalog()) {
			if e.id(it) == id {
				return http.StatusOK, map[string]any{e.single: it}, nil
			}
		}
		return 0, nil, apierr.NotFound(e.single, id)
	}
}

// The catalogue's families.
var (
	catalogLocations = catalogEntry[schema.Location]{family: "locations", single: "location",
		items: (*catalog.Catalog).Locations,
		id:    func(l schema.Location) int64 { return l.ID }, name: func(l schema.Location) string { return l.Name }}
	catalogDatacenters = catalogEntry[schema.Datacenter]{family: "datacenters", single: "datacenter",
		items: (*catalog.Catalog).Datacenters,
		id:    func(d schema.Datacenter) int64 { return d.ID }, name: func(d schema.Datacenter) string { return d.Name },
		// The (deprecated) recommended datacenter is required in the list.
		listExtra: func(c *catalog.Catalog) map[string]any {
			return map[string]any{"recommendation": c.Datacenters()[0].ID}
		}}
	catalogServerTypes = catalogEntry[schema.ServerType]{family: "server_types", single: "server_type",
		items: (*catalog.Catalog).ServerTypes,
		id:    func(t schema.ServerType) int64 { return t.ID }, name: func(t schema.ServerType) string { return t.Name }}
	catalogLBTypes = catalogEntry[schema.LoadBalancerType]{family: "load_balancer_types", single: "load_balancer_type",
		items: (*catalog.Catalog).LBTypes,
		id:    func(t schema.LoadBalancerType) int64 { return t.ID }, name: func(t schema.LoadBalancerType) string { return t.Name }}
	catalogImages = catalogEntry[schema.Image]{family: "images", single: "image",
		items: (*catalog.Catalog).Images,
		id:    func(im schema.Image) int64 { return im.ID },
		name: func(im schema.Image) string {
			if im.Name == nil {
				return ""
			}
			return *im.Name
		},
		keep: func(c *call, im schema.Image) bool {
			q := c.r.URL.Query()
			bound := ""
			if im.BoundTo != nil {
				bound = strconv.FormatInt(*im.BoundTo, 10)
			}
			// bound_to names servers whose backups to list; the
			// catalogue's system images are bound to none.
			return (!q.Has("architecture") || slices.Contains(q["architecture"], im.Architecture)) &&
				(!q.Has("type") || slices.Contains(q["type"], im.Type)) &&
				(!q.Has("status") || slices.Contains(q["status"], im.Status)) &&
				(!q.Has("bound_to") || (bound != "" && slices.Contains(q["bound_to"], bound)))
		},
		labels: func(im schema.Image) map[string]string { return im.Labels },
		created: func(im schema.Image) int64 {
			if im.Created == nil {
				return 0
			}
			return im.Created.Unix()
		}}
)
