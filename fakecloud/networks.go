package fakecloud

import (
	"net/http"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
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

type memberList struct {
	Members []schema.NetworkMember `json:"members"`
	Meta    listMeta               `json:"meta"`
}

// listNetworkMembers serves GET /networks/{id}/members.
func listNetworkMembers(c *call) (int, any, *apierr.Error) {
	id, err := c.id("id")
	if err != nil {
		return 0, nil, err
	}
	q, err := parseList(c.r)
	if err != nil {
		return 0, nil, err
	}
	v := c.r.URL.Query()
	page, total, err := c.tx.NetworkMembers(id, q, world.MemberFilter{Types: v["type"], Subnets: v["subnet"], Statuses: v["status"]})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, memberList{Members: page, Meta: metaOf(c.header, c.r, total, q)}, nil
}
