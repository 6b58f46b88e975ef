package fakecloud

import (
	"net/http"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

type floatingIPGet struct {
	FloatingIP schema.FloatingIP `json:"floating_ip"`
}

type floatingIPList struct {
	FloatingIPs []schema.FloatingIP `json:"floating_ips"`
	Meta        listMeta            `json:"meta"`
}

func oneFloatingIP(f schema.FloatingIP) any { return floatingIPGet{f} }

// listFloatingIPs serves GET /floating_ips: by name and label selector,
// sorted and in pages.
func listFloatingIPs(c *call) (int, any, *apierr.Error) {
	q, err := parseList(c.r)
	if err != nil {
		return 0, nil, err
	}
	page, total, err := c.tx.FloatingIPs(q)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, floatingIPList{FloatingIPs: page, Meta: metaOf(c.header, c.r, total, q)}, nil
}
