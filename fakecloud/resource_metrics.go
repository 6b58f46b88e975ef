package fakecloud

import (
	"net/http"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/timeseries"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// metricsOf serves GET /{kind}s/{id}/metrics: the resource found, the
// query read (types, start, end, step), then its series.
func metricsOf(kind string, types []string, op func(*world.Tx, int64, timeseries.Query) (timeseries.Answer, *apierr.Error)) apiHandler {
	return func(c *call) (int, any, *apierr.Error) {
		id, err := c.resourceID(kind)
		if err != nil {
			return 0, nil, err
		}
		q, err := timeseries.Parse(c.r.URL.Query(), types)
		if err != nil {
			return 0, nil, err
		}
		a, err := op(c.tx, id, q)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, a, nil
	}
}
