package world

import (
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/listing"
)

// PrimaryIP is the primary IP with the ID.
func (t *Tx) PrimaryIP(id int64) (schema.PrimaryIP, *apierr.Error) {
	p, err := find(&t.w.PrimaryIPs, "primary_ip", id)
	if err != nil {
		return schema.PrimaryIP{}, err
	}
	return ViewPrimaryIP(p), nil
}

// PrimaryIPs lists the primary IPs a query and an address (any, if empty)
// select, one page of them, and how many they select in all.
func (t *Tx) PrimaryIPs(q listing.Query, ip string) ([]schema.PrimaryIP, int, *apierr.Error) {
	items := slices.DeleteFunc(t.w.PrimaryIPs.All(), func(p *schema.PrimaryIP) bool {
		return !q.Keeps(p.Name, p.Labels) || (ip != "" && !PrimaryIPHas(p.IP, ip))
	})
	keys := listing.ByIDNameCreated(func(p *schema.PrimaryIP) int64 { return p.ID }, func(p *schema.PrimaryIP) string { return p.Name },
		func(p *schema.PrimaryIP) int64 { return p.Created.Unix() })
	delete(keys, "name")
	return listing.Page(items, q, keys, ViewPrimaryIP)
}

// PrimaryIPUpdateRequest is PUT /primary_ips/{id}; a name given empty is
// refused rather than ignored.
type PrimaryIPUpdateRequest struct {
	Name       *string            `json:"name,omitempty"`
	Labels     *map[string]string `json:"labels,omitempty"`
	AutoDelete *bool              `json:"auto_delete,omitempty"`
}

// UpdatePrimaryIP renames, relabels or sets auto_delete, with no action.
func (t *Tx) UpdatePrimaryIP(id int64, req PrimaryIPUpdateRequest) (schema.PrimaryIP, *apierr.Error) {
	p, err := find(&t.w.PrimaryIPs, "primary_ip", id)
	if err != nil {
		return schema.PrimaryIP{}, err
	}
	taken := NameTaken(&t.w.PrimaryIPs, func(o *schema.PrimaryIP) string { return o.Name })
	if err := RenameRelabel("primary IP", req.Name, req.Labels, CheckName, taken, &p.Name, &p.Labels); err != nil {
		return schema.PrimaryIP{}, err
	}
	if req.AutoDelete != nil {
		p.AutoDelete = *req.AutoDelete
	}
	return ViewPrimaryIP(p), nil
}
