package fakecloud

import (
	"net/http"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

type serverGet struct {
	Server world.ServerView `json:"server"`
}

type serverList struct {
	Servers []world.ServerView `json:"servers"`
	Meta    listMeta           `json:"meta"`
}

func oneServer(v world.ServerView) any { return serverGet{v} }

func listServers(c *call) (int, any, *apierr.Error) {
	q, err := parseList(c.r)
	if err != nil {
		return 0, nil, err
	}
	page, total, err := c.tx.Servers(q, c.r.URL.Query()["status"])
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, serverList{Servers: page, Meta: metaOf(c.header, c.r, total, q)}, nil
}
