package hcloudapi

import (
	"net/http"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// call is one API request being served under the world lock.
type call struct {
	tx     *world.Tx
	r      *http.Request
	header http.Header
}

// id reads an integer path parameter.
func (c *call) id(name string) (int64, *apiError) {
	v := c.r.PathValue(name)
	id, ok := parseID(v)
	if !ok {
		return 0, invalidField(name, "%q is not a valid ID", v)
	}
	return id, nil
}

func (c *call) decode(v any) *apiError { return decode(c.r, v) }
