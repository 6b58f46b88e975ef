package doctor

import (
	"context"
	"slices"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
)

// cloud is what the API listed, one listing per kind of resource. The
// listings only Services need are read when the first Service asks.
type cloud struct {
	servers  []*hcloud.Server // by name
	byID     map[int64]*hcloud.Server
	byName   map[string]*hcloud.Server
	networks []*hcloud.Network
	lbs      []*hcloud.LoadBalancer
	lbByUID  map[string]*hcloud.LoadBalancer // by the Service UID label

	certificates listing[*hcloud.Certificate]
	locations    listing[*hcloud.Location]
	lbTypes      listing[*hcloud.LoadBalancerType]
	primaryIPs   listing[*hcloud.PrimaryIP]
}

func newCloud(servers []*hcloud.Server, networks []*hcloud.Network, lbs []*hcloud.LoadBalancer) *cloud {
	c := &cloud{servers: servers, byID: map[int64]*hcloud.Server{}, byName: map[string]*hcloud.Server{},
		networks: networks, lbs: lbs, lbByUID: map[string]*hcloud.LoadBalancer{}}
	slices.SortFunc(c.servers, func(a, b *hcloud.Server) int { return strings.Compare(a.Name, b.Name) })
	for _, s := range servers {
		c.byID[s.ID] = s
		c.byName[s.Name] = s
	}
	for _, lb := range lbs {
		if uid := lb.Labels[loadbalancer.ServiceUIDLabel]; uid != "" {
			c.lbByUID[uid] = lb
		}
	}
	return c
}

// networkName names a network by ID, for messages.
func (c *cloud) networkName(id int64) string {
	for _, n := range c.networks {
		if n.ID == id {
			return n.Name
		}
	}
	return "?"
}

// listing is a listing read once, on first use.
type listing[T any] struct {
	read  bool
	items []T
	err   error
}

func (l *listing[T]) get(ctx context.Context, list func(context.Context) ([]T, error)) ([]T, error) {
	if !l.read {
		l.items, l.err = list(ctx)
		l.read = true
	}
	return l.items, l.err
}
