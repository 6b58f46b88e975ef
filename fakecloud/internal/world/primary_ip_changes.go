package world

import (
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// UnassignPrimaryIP takes a primary IP off its server, which must be off
// (the spec's server_not_stopped), and whose IPv4 must not be a load
// balancer's target (server_is_load_balancer_target).
func (t *Tx) UnassignPrimaryIP(id int64) (schema.Action, *apierr.Error) {
	return act(t, primaryIPs, id, "unassign_primary_ip", func(p *schema.PrimaryIP) (step, *apierr.Error) {
		return t.unassignPrimaryIP(p)
	})
}

// unassignPrimaryIP plans unassign_primary_ip.
func (t *Tx) unassignPrimaryIP(p *schema.PrimaryIP) (step, *apierr.Error) {
	if p.AssigneeID == nil {
		return step{}, apierr.Errorf(apierr.CodeInvalidInput, "primary_ip %d is not assigned", p.ID)
	}
	if p.AssigneeType == AssigneeLB {
		return step{}, apierr.Errorf(apierr.CodeUnsupportedError, "primary_ip %d stays with load balancer %d for its lifetime", p.ID, *p.AssigneeID)
	}
	s, ok := t.w.Servers.Get(*p.AssigneeID)
	if !ok {
		return step{}, apierr.Errorf(apierr.CodeInvalidInput, "primary_ip %d is not assigned", p.ID)
	}
	if s.Status != "off" {
		return step{}, apierr.Errorf("server_not_stopped", "server %d must be off to unassign a primary IP", s.ID)
	}
	if p.Type == "ipv4" && t.w.PublicTarget(s.ID) {
		return step{}, apierr.Errorf("server_is_load_balancer_target", "server %d is a load balancer target by its public IPv4", s.ID)
	}
	return t.w.primaryIPStep(p, s, func() {
		p.AssigneeID, p.AssigneeType = nil, Unassigned
		if p.Type == "ipv4" {
			s.PublicNet.IPv4 = schema.ServerPublicNetIPv4{}
		} else {
			s.PublicNet.IPv6 = schema.ServerPublicNetIPv6{}
		}
	}), nil
}

// AssignPrimaryIP gives an unassigned primary IP to a server that is off,
// in its location, and without an address of that family.
func (t *Tx) AssignPrimaryIP(id int64, req schema.PrimaryIPActionAssignRequest) (schema.Action, *apierr.Error) {
	return act(t, primaryIPs, id, "assign_primary_ip", func(p *schema.PrimaryIP) (step, *apierr.Error) {
		return t.assignPrimaryIP(p, req)
	})
}

// assignPrimaryIP plans assign_primary_ip.
func (t *Tx) assignPrimaryIP(p *schema.PrimaryIP, req schema.PrimaryIPActionAssignRequest) (step, *apierr.Error) {
	if req.AssigneeType != "server" {
		return step{}, apierr.InvalidField("assignee_type", "must be server")
	}
	if p.AssigneeID != nil {
		return step{}, apierr.Errorf("primary_ip_already_assigned", "primary_ip %d is assigned to %s %d", p.ID, p.AssigneeType, *p.AssigneeID)
	}
	s, ok := t.w.Servers.Get(req.AssigneeID)
	if !ok {
		return step{}, apierr.InvalidField("assignee_id", "server %d does not exist", req.AssigneeID)
	}
	if s.Status != "off" {
		return step{}, apierr.Errorf("server_not_stopped", "server %d must be off to be assigned a primary IP", s.ID)
	}
	if s.Location.Name != p.Location.Name {
		return step{}, apierr.InvalidField("assignee_id", "server %d is in %s, the primary IP in %s", s.ID, s.Location.Name, p.Location.Name)
	}
	if p.Type == "ipv4" && s.PublicNet.IPv4.IP != "" {
		return step{}, apierr.Errorf("server_has_ipv4", "server %d already has an IPv4 address", s.ID)
	}
	if p.Type == "ipv6" && s.PublicNet.IPv6.IP != "" {
		return step{}, apierr.Errorf("server_has_ipv6", "server %d already has an IPv6 address", s.ID)
	}
	return t.w.primaryIPStep(p, s, func() { t.w.AssignPrimaryIP(p, s) }), nil
}

// primaryIPStep is what assign and unassign do: the change to the primary
// IP and its server, which the action holds too. It is listed under
// /primary_ips/actions, where it started; under pessimistic realism it
// names the primary IP alone.
func (w *project) primaryIPStep(p *schema.PrimaryIP, s *StoredServer, change func()) step {
	return step{apply: change, holds: []Ref{{Type: "server", ID: s.ID}}, resources: w.PrimaryIPRefs(p.ID, s.ID), family: "primary_ip"}
}

// PrimaryIPCreateRequest is POST /primary_ips; location takes an ID or a
// name, as the description allows. assignee_type is optional since
// 2026-04-27 and only server can be assigned, so it defaults to server.
type PrimaryIPCreateRequest struct {
	Name         string             `json:"name"`
	Type         string             `json:"type"`
	AssigneeType string             `json:"assignee_type,omitempty"`
	AssigneeID   *int64             `json:"assignee_id,omitempty"`
	Labels       *map[string]string `json:"labels,omitempty"`
	AutoDelete   *bool              `json:"auto_delete,omitempty"`
	Location     *schema.IDOrName   `json:"location,omitempty"`
}

// PrimaryIPCreated is what creating a primary IP answers: one assigned at
// once comes with its assign action.
type PrimaryIPCreated struct {
	PrimaryIP schema.PrimaryIP `json:"primary_ip"`
	Action    *schema.Action   `json:"action"`
}

// CreatePrimaryIP makes a primary IP in a location, or assigned at once
// to a server that is off (and then in the server's location).
func (t *Tx) CreatePrimaryIP(req PrimaryIPCreateRequest) (PrimaryIPCreated, *apierr.Error) {
	var f apierr.Fields
	CheckName(&f, "name", req.Name)
	labels := DerefLabels(req.Labels)
	ValidateLabels(&f, "labels", labels)
	if req.Type != "ipv4" && req.Type != "ipv6" {
		f.Add("type", "%q is not one of ipv4, ipv6", req.Type)
	}
	var s *StoredServer
	var loc schema.Location
	switch {
	case req.AssigneeID != nil:
		if req.AssigneeType != "" && req.AssigneeType != "server" {
			f.Add("assignee_type", "%q is not one of server", req.AssigneeType)
		}
		if req.Location != nil {
			f.Add("location", "omit it with assignee_id: the server's location is taken")
		}
		var ok bool
		if s, ok = t.w.Servers.Get(*req.AssigneeID); !ok {
			f.Add("assignee_id", "server %d does not exist", *req.AssigneeID)
		} else {
			loc = s.Location
		}
	case req.Location != nil:
		var ok bool
		if loc, ok = t.w.Cat.Location(idOrNameString(*req.Location)); !ok {
			f.Add("location", "%q is not a location", idOrNameString(*req.Location))
		}
	default:
		f.Add("location", "is required without assignee_id")
	}
	if err := f.Err(); err != nil {
		return PrimaryIPCreated{}, err
	}
	if _, dup := t.w.PrimaryIPs.Find(func(p *schema.PrimaryIP) bool { return p.Name == req.Name }); dup {
		return PrimaryIPCreated{}, apierr.NotUnique("name", "primary IP name %q is already used", req.Name)
	}
	if s != nil {
		switch {
		case s.Status != "off":
			return PrimaryIPCreated{}, apierr.Errorf("server_not_stopped", "server %d must be off to be assigned a primary IP", s.ID)
		case req.Type == "ipv4" && s.PublicNet.IPv4.IP != "":
			return PrimaryIPCreated{}, apierr.Errorf("server_has_ipv4", "server %d already has an IPv4 address", s.ID)
		case req.Type == "ipv6" && s.PublicNet.IPv6.IP != "":
			return PrimaryIPCreated{}, apierr.Errorf("server_has_ipv6", "server %d already has an IPv6 address", s.ID)
		}
	}
	ip, err := t.w.primaryIPAddress(req.Type, s != nil)
	if err != nil {
		return PrimaryIPCreated{}, err
	}
	p := t.w.NewPrimaryIP(req.Type, ip, loc, 0, t.w.Now().UTC().Truncate(time.Second))
	p.Name, p.Labels, p.AutoDelete = req.Name, labels, req.AutoDelete != nil && *req.AutoDelete
	p.AssigneeID, p.AssigneeType = nil, Unassigned
	out := PrimaryIPCreated{}
	if s != nil {
		a := t.w.startAction(ActionSpec{Command: "assign_primary_ip", Resources: t.w.PrimaryIPRefs(p.ID, s.ID), Family: "primary_ip"})
		t.w.AssignPrimaryIP(p, s)
		v := t.w.ViewAction(a)
		out.Action = &v
	}
	out.PrimaryIP = ViewPrimaryIP(p)
	return out, nil
}

// DeletePrimaryIP deletes an unassigned primary IP (must_be_unassigned
// otherwise, as the API answers since May 2026).
func (t *Tx) DeletePrimaryIP(id int64) *apierr.Error {
	p, err := primaryIPs.find(t.w, id)
	if err != nil {
		return err
	}
	if p.AssigneeID != nil {
		return apierr.Errorf("must_be_unassigned", "primary_ip %d is assigned to %s %d; unassign it first", p.ID, p.AssigneeType, *p.AssigneeID)
	}
	if p.Protection.Delete {
		return apierr.Errorf(apierr.CodeProtected, "primary_ip %d is delete protected", p.ID)
	}
	if err := t.w.CheckLock(Ref{Type: "primary_ip", ID: p.ID}); err != nil {
		return err
	}
	if p.Type == "ipv4" {
		t.w.PubIPv4.Release(p.IP)
	}
	t.w.PrimaryIPs.Del(p.ID)
	return nil
}
