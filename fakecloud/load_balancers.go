package fakecloud

import (
	"net/http"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

type lbGet struct {
	LoadBalancer world.LoadBalancerView `json:"load_balancer"`
}

type lbList struct {
	LoadBalancers []world.LoadBalancerView `json:"load_balancers"`
	Meta          listMeta                 `json:"meta"`
}

func oneLoadBalancer(v world.LoadBalancerView) any { return lbGet{v} }

func listLoadBalancers(c *call) (int, any, *apierr.Error) {
	q, err := parseList(c.r)
	if err != nil {
		return 0, nil, err
	}
	page, total, err := c.tx.LoadBalancers(q)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, lbList{LoadBalancers: page, Meta: metaOf(c.header, c.r, total, q)}, nil
}
