package hcloudapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

type sshKeyGet struct {
	SSHKey schema.SSHKey `json:"ssh_key"`
}

type sshKeyList struct {
	SSHKeys []schema.SSHKey `json:"ssh_keys"`
	Meta    listMeta        `json:"meta"`
}

func (s *Server) mountSSHKeys(r chi.Router) {
	wrap := func(k schema.SSHKey) any { return sshKeyGet{k} }
	r.Get("/ssh_keys", s.serve(func(c *call) (int, any, *apiError) {
		q, err := parseList(c.r)
		if err != nil {
			return 0, nil, err
		}
		page, total, err := c.tx.SSHKeys(q, c.r.URL.Query().Get("fingerprint"))
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, sshKeyList{SSHKeys: page, Meta: metaOf(c.header, c.r, total, q)}, nil
	}))
	r.Post("/ssh_keys", s.serve(create((*world.Tx).CreateSSHKey, wrap)))
	r.Get("/ssh_keys/{id}", s.serve(get((*world.Tx).SSHKey, wrap)))
	r.Put("/ssh_keys/{id}", s.serve(update("ssh_key", (*world.Tx).UpdateSSHKey, wrap)))
	r.Delete("/ssh_keys/{id}", s.serve(del((*world.Tx).DeleteSSHKey)))
}
