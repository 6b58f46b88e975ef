package fakecloud

import (
	"cmp"
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
	every          func(c *catalog.Catalog) []T // what GET by ID finds, when more than items
	own            func(c *call) []T            // the project's own, listed after the catalogue's
	id             func(T) int64
	name           func(T) string
	keep           func(c *call, item T) bool // extra filters; nil keeps all
	labels         func(T) map[string]string  // non-nil: label_selector filters the list
	created        func(T) int64              // non-nil: the list sorts by created too
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
		items := slices.Clone(e.items(c.tx.Catalog()))
		if e.own != nil {
			items = append(items, e.own(c)...)
		}
		items = slices.DeleteFunc(items, func(it T) bool {
			return (q.HasName && e.name(it) != q.Name) || (e.keep != nil && !e.keep(c, it)) ||
				(q.HasSelector && e.labels != nil && !q.Selector.Matches(e.labels(it)))
		})
		if err := listing.ApplySort(items, q.Sort, keys); err != nil {
			return 0, nil, err
		}
		page, meta := paginate(c.header, c.r, items, q)
		return http.StatusOK, map[string]any{e.family: page, "meta": meta}, nil
	}
}

// catalogGet serves GET /{family}/{id}.
func catalogGet[T any](e catalogEntry[T]) apiHandler {
	return func(c *call) (int, any, *apierr.Error) {
		id, err := c.id("id")
		if err != nil {
			return 0, nil, err
		}
		items := e.items
		if e.every != nil {
			items = e.every
		}
		all := items(c.tx.Catalog())
		if e.own != nil {
			all = append(all, e.own(c)...)
		}
		for _, it := range all {
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
	catalogServerTypes = catalogEntry[catalog.ServerTypeView]{family: "server_types", single: "server_type",
		items: (*catalog.Catalog).ServerTypes, every: (*catalog.Catalog).EveryServerType,
		id: func(t catalog.ServerTypeView) int64 { return t.ID }, name: func(t catalog.ServerTypeView) string { return t.Name }}
	catalogLBTypes = catalogEntry[catalog.LBTypeView]{family: "load_balancer_types", single: "load_balancer_type",
		items: (*catalog.Catalog).LBTypes,
		id:    func(t catalog.LBTypeView) int64 { return t.ID }, name: func(t catalog.LBTypeView) string { return t.Name }}
	catalogISOs = catalogEntry[schema.ISO]{family: "isos", single: "iso",
		items: (*catalog.Catalog).ISOs,
		id:    func(iso schema.ISO) int64 { return iso.ID }, name: func(iso schema.ISO) string { return iso.Name },
		keep: func(c *call, iso schema.ISO) bool {
			// architecture keeps the ISOs of those architectures; the
			// wildcard ones (null) only with include_architecture_wildcard.
			q := c.r.URL.Query()
			if !q.Has("architecture") {
				return true
			}
			if iso.Architecture == nil {
				return q.Get("include_architecture_wildcard") == "true"
			}
			return slices.Contains(q["architecture"], *iso.Architecture)
		}}
	catalogImages = catalogEntry[catalog.ImageView]{family: "images", single: "image",
		items: (*catalog.Catalog).Images, own: func(c *call) []catalog.ImageView { return c.tx.Images() },
		id: func(im catalog.ImageView) int64 { return im.ID },
		name: func(im catalog.ImageView) string {
			if im.Name == nil {
				return ""
			}
			return *im.Name
		},
		keep: func(c *call, im catalog.ImageView) bool {
			q := c.r.URL.Query()
			bound := ""
			if im.BoundTo != nil {
				bound = strconv.FormatInt(*im.BoundTo, 10)
			}
			// bound_to names servers whose backups to list.
			return (!q.Has("architecture") || slices.Contains(q["architecture"], im.Architecture)) &&
				(!q.Has("type") || slices.Contains(q["type"], im.Type)) &&
				(!q.Has("status") || slices.Contains(q["status"], im.Status)) &&
				(!q.Has("bound_to") || (bound != "" && slices.Contains(q["bound_to"], bound)))
		},
		labels: func(im catalog.ImageView) map[string]string { return im.Labels },
		created: func(im catalog.ImageView) int64 {
			if im.Created == nil {
				return 0
			}
			return im.Created.Unix()
		}}
)

// datacentersGone answers GET /datacenters and /datacenters/{id}: removed
// after 2026-10-01 (changelog 2026-06-02 "Datacenters deprecated"), they
// answer 410 with the description's code for a removed endpoint and the
// announcement hcloud-go reads from its details.
func datacentersGone(*call) (int, any, *apierr.Error) {
	return 0, nil, &apierr.Error{Code: "deprecated_api_endpoint", Message: "API functionality was removed",
		Details: map[string]string{"announcement": "https://docs.hetzner.cloud/changelog#2026-06-02-datacenters-deprecated"}}
}

type imageGet struct {
	Image catalog.ImageView `json:"image"`
}

func oneImage(v catalog.ImageView) any { return imageGet{v} }
