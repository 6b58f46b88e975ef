package fakecloud

import (
	"net/http"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/catalog"
)

// pricing serves GET /pricing.
func pricing(c *call) (int, any, *apierr.Error) {
	return http.StatusOK, map[string]catalog.Pricing{"pricing": c.tx.Catalog().Pricing()}, nil
}
