package world

import (
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/listing"
)

// NetworkMembers lists the servers and load balancers attached to the
// network with the ID, as GET /networks/{id}/members does.
func (t *Tx) NetworkMembers(id int64, q listing.Query, filter MemberFilter) ([]schema.NetworkMember, int, *apierr.Error) {
	n, err := networks.find(t.w, id)
	if err != nil {
		return nil, 0, err
	}
	return t.w.NetworkMembers(n, q, filter)
}
