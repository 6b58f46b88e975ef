package fakecloud

import (
	"net/http"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/strict"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// call is one API request being served under the world lock.
type call struct {
	tx     *world.Tx
	r      *http.Request
	header http.Header
}

// id reads an integer path parameter.
func (c *call) id(name string) (int64, *apierr.Error) {
	v := c.r.PathValue(name)
	id, ok := strict.ParseID(v)
	if !ok {
		return 0, apierr.InvalidField(name, "%q is not a valid ID", v)
	}
	return id, nil
}

func (c *call) decode(v any) *apierr.Error { return wire.Decode(c.r, v) }
