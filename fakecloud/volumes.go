package fakecloud

import (
	"net/http"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

type volumeGet struct {
	Volume schema.Volume `json:"volume"`
}

type volumeList struct {
	Volumes []schema.Volume `json:"volumes"`
	Meta    listMeta        `json:"meta"`
}

func oneVolume(v schema.Volume) any { return volumeGet{v} }

// listVolumes serves GET /volumes: by name, label selector and status,
// sorted and in pages.
func listVolumes(c *call) (int, any, *apierr.Error) {
	q, err := parseList(c.r)
	if err != nil {
		return 0, nil, err
	}
	page, total, err := c.tx.Volumes(q, c.r.URL.Query()["status"])
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, volumeList{Volumes: page, Meta: metaOf(c.header, c.r, total, q)}, nil
}
