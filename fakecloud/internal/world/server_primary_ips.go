package world

import (
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// givenPrimaryIPs resolves the primary IPs a new server is created on
// (public_net.ipv4 and .ipv6, by ID): [0] the IPv4, [1] the IPv6, nil
// where none is given. A missing one, or one given with its family turned
// off, is a field error; one of the wrong family answers 412
// primary_ip_version_mismatch, one already assigned 422
// primary_ip_assigned, one an action holds 423 locked.
func (w *project) givenPrimaryIPs(f *apierr.Fields, pn *serverCreatePublicNet) ([2]*schema.PrimaryIP, *apierr.Error) {
	var out [2]*schema.PrimaryIP
	if pn == nil {
		return out, nil
	}
	var refused *apierr.Error
	enable4, enable6 := pn.enabled()
	for i, g := range []struct {
		id      int64
		enabled bool
		family  string
	}{{pn.IPv4ID, enable4, "ipv4"}, {pn.IPv6ID, enable6, "ipv6"}} {
		if g.id == 0 {
			continue
		}
		field := "public_net." + g.family
		p, ok := w.PrimaryIPs.Get(g.id)
		switch {
		case !ok:
			f.Add(field, "primary IP %d does not exist", g.id)
			continue
		case !g.enabled:
			f.Add(field, "needs public_net.enable_%s true", g.family)
			continue
		}
		switch {
		case refused != nil:
		case p.Type != g.family:
			refused = apierr.Errorf("primary_ip_version_mismatch", "primary IP %d is %s, given as %s", p.ID, p.Type, g.family)
		case p.AssigneeID != nil:
			refused = apierr.Errorf("primary_ip_assigned", "primary IP %d is assigned to %s %d", p.ID, p.AssigneeType, *p.AssigneeID)
		default:
			refused = w.CheckLock(Ref{Type: "primary_ip", ID: p.ID})
		}
		out[i] = p
	}
	return out, refused
}
