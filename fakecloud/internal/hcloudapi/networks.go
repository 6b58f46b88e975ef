package hcloudapi

import (
	"net/http"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

type networkGet struct {
	Network schema.Network `json:"network"`
}

type networkList struct {
	Networks []schema.Network `json:"networks"`
	Meta     listMeta         `json:"meta"`
}

func oneNetwork(n schema.Network) any { return networkGet{n} }

func listNetworks(c *call) (int, any, *apierr.Error) {
	q, err := parseList(c.r)
	if err != nil {
		return 0, nil, err
	}
	page, total, err := c.tx.Networks(q)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, networkList{Networks: page, Meta: metaOf(c.header, c.r, total, q)}, nil
}
