package fakecloud

import (
	"net/http"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

type primaryIPGet struct {
	PrimaryIP schema.PrimaryIP `json:"primary_ip"`
}

type primaryIPList struct {
	PrimaryIPs []schema.PrimaryIP `json:"primary_ips"`
	Meta       listMeta           `json:"meta"`
}

func onePrimaryIP(p schema.PrimaryIP) any { return primaryIPGet{p} }

func listPrimaryIPs(c *call) (int, any, *apierr.Error) {
	q, err := parseList(c.r)
	if err != nil {
		return 0, nil, err
	}
	page, total, err := c.tx.PrimaryIPs(q, c.r.URL.Query().Get("ip"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, primaryIPList{PrimaryIPs: page, Meta: metaOf(c.header, c.r, total, q)}, nil
}
