package fakecloud

import (
	"net/http"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

type placementGroupGet struct {
	PlacementGroup schema.PlacementGroup `json:"placement_group"`
}

type placementGroupList struct {
	PlacementGroups []schema.PlacementGroup `json:"placement_groups"`
	Meta            listMeta                `json:"meta"`
}

func onePlacementGroup(g schema.PlacementGroup) any { return placementGroupGet{g} }

// listPlacementGroups serves GET /placement_groups: by name, label
// selector and type, sorted and in pages.
func listPlacementGroups(c *call) (int, any, *apierr.Error) {
	q, err := parseList(c.r)
	if err != nil {
		return 0, nil, err
	}
	page, total, err := c.tx.PlacementGroups(q, c.r.URL.Query()["type"])
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, placementGroupList{PlacementGroups: page, Meta: metaOf(c.header, c.r, total, q)}, nil
}
