package hcloudapi

import (
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

type primaryIPGet struct {
	PrimaryIP schema.PrimaryIP `json:"primary_ip"`
}

type primaryIPList struct {
	PrimaryIPs []schema.PrimaryIP `json:"primary_ips"`
	Meta       listMeta           `json:"meta"`
}

// newPrimaryIP records the primary IP a new server gets.
func (w *liveWorld) newPrimaryIP(kind, ip string, loc schema.Location, serverID int64, now time.Time) *schema.PrimaryIP {
	id := w.newID("primary_ip")
	p := &schema.PrimaryIP{ID: id, IP: ip, Type: kind, Name: "primary_ip-" + strconv.Itoa(int(id)), Labels: map[string]string{},
		AssigneeID: &serverID, AssigneeType: "server", AutoDelete: true, Created: now, Location: loc,
		DNSPtr: []schema.PrimaryIPDNSPTR{}}
	if a, err := netip.ParseAddr(ip); err == nil && a.Is4() {
		p.DNSPtr = []schema.PrimaryIPDNSPTR{{IP: ip, DNSPtr: defaultPTR(a)}}
	}
	w.primaryIPs.put(id, p)
	return p
}

func viewPrimaryIP(p *schema.PrimaryIP) schema.PrimaryIP {
	v := *p
	v.Labels = copyLabels(p.Labels)
	v.DNSPtr = append([]schema.PrimaryIPDNSPTR{}, p.DNSPtr...)
	return v
}

// mountPrimaryIPs serves the primary IPs servers were given, and their
// assign and unassign actions.
func (s *Server) mountPrimaryIPs(r chi.Router) {
	s.actionRoutes(r, "primary_ips", primaryIPActions)
	r.Post("/primary_ips", s.serve(createPrimaryIP))
	r.Delete("/primary_ips/{id}", s.serve(deletePrimaryIP))
	r.Put("/primary_ips/{id}", s.serve(updatePrimaryIP))
	r.Get("/primary_ips", s.serve(func(c *call) (int, any, *apiError) {
		q, err := parseList(c.r)
		if err != nil {
			return 0, nil, err
		}
		ip := c.r.URL.Query().Get("ip")
		items := slices.DeleteFunc(c.w.primaryIPs.all(), func(p *schema.PrimaryIP) bool {
			return (q.HasName && p.Name != q.Name) || (q.HasSelector && !q.Selector.Matches(p.Labels)) || (ip != "" && p.IP != ip)
		})
		keys := byIDNameCreated(func(p *schema.PrimaryIP) int64 { return p.ID }, func(p *schema.PrimaryIP) string { return p.Name },
			func(p *schema.PrimaryIP) int64 { return p.Created.Unix() })
		delete(keys, "name")
		if err := applySort(items, q.Sort, keys); err != nil {
			return 0, nil, err
		}
		page, meta := paginate(c.header, c.r, items, q)
		out := primaryIPList{PrimaryIPs: make([]schema.PrimaryIP, 0, len(page)), Meta: meta}
		for _, p := range page {
			out.PrimaryIPs = append(out.PrimaryIPs, viewPrimaryIP(p))
		}
		return http.StatusOK, out, nil
	}))
	r.Get("/primary_ips/{id}", s.serve(func(c *call) (int, any, *apiError) {
		id, err := c.id("id")
		if err != nil {
			return 0, nil, err
		}
		p, ok := c.w.primaryIPs.get(id)
		if !ok {
			return 0, nil, notFound("primary_ip", id)
		}
		return http.StatusOK, primaryIPGet{viewPrimaryIP(p)}, nil
	}))
}

// primaryIPUpdateRequest is PUT /primary_ips/{id}; a name given empty is
// refused rather than ignored.
type primaryIPUpdateRequest struct {
	Name       *string            `json:"name,omitempty"`
	Labels     *map[string]string `json:"labels,omitempty"`
	AutoDelete *bool              `json:"auto_delete,omitempty"`
}

// updatePrimaryIP renames, relabels or sets auto_delete, with no action.
func updatePrimaryIP(c *call) (int, any, *apiError) {
	p, err := lookup(c, &c.w.primaryIPs, "primary_ip")
	if err != nil {
		return 0, nil, err
	}
	var req primaryIPUpdateRequest
	if err := c.decode(&req); err != nil {
		return 0, nil, err
	}
	taken := nameTaken(&c.w.primaryIPs, func(o *schema.PrimaryIP) string { return o.Name })
	if err := renameRelabel("primary IP", req.Name, req.Labels, checkName, taken, &p.Name, &p.Labels); err != nil {
		return 0, nil, err
	}
	if req.AutoDelete != nil {
		p.AutoDelete = *req.AutoDelete
	}
	return http.StatusOK, primaryIPGet{viewPrimaryIP(p)}, nil
}
