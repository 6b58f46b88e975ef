package fakecloud

import (
	"net/http"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

type firewallGet struct {
	Firewall schema.Firewall `json:"firewall"`
}

type firewallList struct {
	Firewalls []schema.Firewall `json:"firewalls"`
	Meta      listMeta          `json:"meta"`
}

func oneFirewall(fw schema.Firewall) any { return firewallGet{fw} }

// listFirewalls serves GET /firewalls: by name and label selector, sorted
// and in pages.
func listFirewalls(c *call) (int, any, *apierr.Error) {
	q, err := parseList(c.r)
	if err != nil {
		return 0, nil, err
	}
	page, total, err := c.tx.Firewalls(q)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, firewallList{Firewalls: page, Meta: metaOf(c.header, c.r, total, q)}, nil
}
