package fakecloud

import (
	"net/http"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

type certGet struct {
	Certificate schema.Certificate `json:"certificate"`
}

type certList struct {
	Certificates []schema.Certificate `json:"certificates"`
	Meta         listMeta             `json:"meta"`
}

func oneCertificate(c schema.Certificate) any { return certGet{c} }

func listCertificates(c *call) (int, any, *apierr.Error) {
	q, err := parseList(c.r)
	if err != nil {
		return 0, nil, err
	}
	page, total, err := c.tx.Certificates(q, c.r.URL.Query()["type"])
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, certList{Certificates: page, Meta: metaOf(c.header, c.r, total, q)}, nil
}
