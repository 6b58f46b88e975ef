package fakecloud

import (
	"net/http"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

type sshKeyGet struct {
	SSHKey schema.SSHKey `json:"ssh_key"`
}

type sshKeyList struct {
	SSHKeys []schema.SSHKey `json:"ssh_keys"`
	Meta    listMeta        `json:"meta"`
}

func oneSSHKey(k schema.SSHKey) any { return sshKeyGet{k} }

func listSSHKeys(c *call) (int, any, *apierr.Error) {
	q, err := parseList(c.r)
	if err != nil {
		return 0, nil, err
	}
	page, total, err := c.tx.SSHKeys(q, c.r.URL.Query().Get("fingerprint"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, sshKeyList{SSHKeys: page, Meta: metaOf(c.header, c.r, total, q)}, nil
}
