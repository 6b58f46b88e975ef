package world

import (
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/listing"
)

// primaryIPs is the primary IP kind's handle.
var primaryIPs = kindOf[schema.PrimaryIP]{"primary_ip", func(w *project) *Table[schema.PrimaryIP] { return &w.PrimaryIPs }}

// primaryIPKind declares primary IPs to the world's mechanisms.
func primaryIPKind() kind {
	return primaryIPs.declare(kind{
		idBase:   600000,
		commands: []string{"assign_primary_ip", "unassign_primary_ip", "change_dns_ptr", "change_protection"},
		// A deleted server's or load balancer's primary IPs go with it when
		// they auto-delete, and are unassigned otherwise.
		forget: func(w *project, gone Ref) {
			for _, pip := range w.PrimaryIPs.All() {
				if pip.AssigneeID == nil || *pip.AssigneeID != gone.ID || pip.AssigneeType != gone.Type {
					continue
				}
				if !pip.AutoDelete {
					pip.AssigneeID, pip.AssigneeType = nil, Unassigned
					continue
				}
				if pip.Type == "ipv4" {
					w.PubIPv4.Release(pip.IP)
				}
				w.PrimaryIPs.Del(pip.ID)
			}
		},
		// A restored primary IP is not given back to a server deleted since.
		fit: func(w *project, id int64) {
			p, ok := w.PrimaryIPs.Get(id)
			if !ok || p.AssigneeID == nil || p.AssigneeType != "server" {
				return
			}
			if _, ok := w.Servers.Get(*p.AssigneeID); !ok {
				p.AssigneeID, p.AssigneeType = nil, Unassigned
			}
		},
	})
}

// PrimaryIP is the primary IP with the ID.
func (t *Tx) PrimaryIP(id int64) (schema.PrimaryIP, *apierr.Error) {
	p, err := primaryIPs.find(t.w, id)
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
	p, err := primaryIPs.find(t.w, id)
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
