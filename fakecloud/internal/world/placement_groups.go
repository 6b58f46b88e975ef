package world

import (
	"slices"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/listing"
)

// Placement groups spread their servers over physical hosts. A server's
// membership is kept on the server (its placement_group, holding the
// group's ID only), so adding and removing are the server's actions,
// undone with it; a group's servers are the servers that name it.

const (
	// maxSpreadMembers is how many servers a spread group holds, as the
	// API's documentation says and live answers show
	// (terraform-provider-hcloud issue 1170: "placement group with ID …
	// contains already 10 servers", placement_group_member_limit_reached).
	maxSpreadMembers = 10
	// maxPlacementGroups is a project's limit, as the placement group
	// documentation's limits say (cited in vitobotta/hetzner-k3s issue 200).
	maxPlacementGroups = 50
)

// placementGroups is the placement group kind's handle; the registry
// keeps its table, and a snapshot its list under kinds.
var placementGroups, placementGroupTable = ownKind("placement_group", func(g *schema.PlacementGroup) (int64, string) { return g.ID, g.Name })

// placementGroupKind declares placement groups: what a server's view
// shows of them and what a server order naming one does.
func placementGroupKind() kind {
	return placementGroups.declare(kind{
		idBase:    800000,
		own:       placementGroupTable,
		actionsOn: map[string][]string{"server": {"add_to_placement_group", "remove_from_placement_group"}},
		onServer: func(w *project, s *StoredServer, v *ServerView) {
			v.PlacementGroup = nil
			if s.PlacementGroup == nil {
				return
			}
			if g, ok := placementGroups.table(w).Get(s.PlacementGroup.ID); ok {
				pg := w.viewPlacementGroup(g)
				v.PlacementGroup = &pg
			}
		},
		order: func(w *project, f *apierr.Fields, req ServerCreateRequest, _ schema.Location) (joinServer, *apierr.Error) {
			if req.PlacementGroup == 0 {
				return nil, nil
			}
			g, ok := placementGroups.table(w).Get(req.PlacementGroup)
			if !ok {
				f.Add("placement_group", "placement group %d does not exist", req.PlacementGroup)
				return nil, nil
			}
			if err := w.roomIn(g); err != nil {
				return nil, err
			}
			return func(s *StoredServer) []*StoredAction {
				s.PlacementGroup = &schema.PlacementGroup{ID: g.ID}
				return nil
			}, nil
		},
	})
}

// PlacementGroup is the placement group with the ID.
func (t *Tx) PlacementGroup(id int64) (schema.PlacementGroup, *apierr.Error) {
	g, err := placementGroups.find(t.w, id)
	if err != nil {
		return schema.PlacementGroup{}, err
	}
	return t.w.viewPlacementGroup(g), nil
}

// PlacementGroups lists the placement groups a query and the types (any,
// if none) select, one page of them, and how many they select in all.
func (t *Tx) PlacementGroups(q listing.Query, types []string) ([]schema.PlacementGroup, int, *apierr.Error) {
	items := slices.DeleteFunc(placementGroups.table(t.w).All(), func(g *schema.PlacementGroup) bool {
		return !q.Keeps(g.Name, g.Labels) || (len(types) > 0 && !slices.Contains(types, g.Type))
	})
	keys := listing.ByIDNameCreated(func(g *schema.PlacementGroup) int64 { return g.ID },
		func(g *schema.PlacementGroup) string { return g.Name }, func(g *schema.PlacementGroup) int64 { return g.Created.Unix() })
	return listing.Page(items, q, keys, t.w.viewPlacementGroup)
}

// PlacementGroupCreated is what creating a placement group answers: it
// exists at once, so its action is null.
type PlacementGroupCreated struct {
	PlacementGroup schema.PlacementGroup `json:"placement_group"`
	Action         *schema.Action        `json:"action"`
}

// CreatePlacementGroup creates an empty placement group of type spread,
// the only type there is; its name is unique.
func (t *Tx) CreatePlacementGroup(req schema.PlacementGroupCreateRequest) (PlacementGroupCreated, *apierr.Error) {
	var f apierr.Fields
	CheckName(&f, "name", req.Name)
	if req.Type != "spread" {
		f.Add("type", "%q is not a placement group type; the one there is is spread", req.Type)
	}
	labels := DerefLabels(req.Labels)
	ValidateLabels(&f, "labels", labels)
	if err := f.Err(); err != nil {
		return PlacementGroupCreated{}, err
	}
	table := placementGroups.table(t.w)
	if NameTaken(table, func(g *schema.PlacementGroup) string { return g.Name })(req.Name) {
		return PlacementGroupCreated{}, apierr.NotUnique("name", "placement group name %q is already used", req.Name)
	}
	if len(table.All()) >= maxPlacementGroups {
		return PlacementGroupCreated{}, apierr.Errorf(apierr.CodeResourceLimitExceeded, "a project has at most %d placement groups", maxPlacementGroups)
	}
	g := &schema.PlacementGroup{ID: t.w.NewID("placement_group"), Name: req.Name, Labels: labels, Type: req.Type,
		Created: t.w.Now().UTC().Truncate(time.Second)}
	table.Put(g.ID, g)
	return PlacementGroupCreated{PlacementGroup: t.w.viewPlacementGroup(g)}, nil
}

// UpdatePlacementGroup renames and relabels a placement group.
func (t *Tx) UpdatePlacementGroup(id int64, req schema.PlacementGroupUpdateRequest) (schema.PlacementGroup, *apierr.Error) {
	g, err := placementGroups.find(t.w, id)
	if err != nil {
		return schema.PlacementGroup{}, err
	}
	taken := NameTaken(placementGroups.table(t.w), func(o *schema.PlacementGroup) string { return o.Name })
	if err := RenameRelabel("placement group", req.Name, req.Labels, CheckName, taken, &g.Name, &g.Labels); err != nil {
		return schema.PlacementGroup{}, err
	}
	return t.w.viewPlacementGroup(g), nil
}

// DeletePlacementGroup deletes a placement group that holds no server.
// The API's documentation is silent on a group that still holds some;
// fakecloud refuses it (resource_in_use), the unhelpful reading.
func (t *Tx) DeletePlacementGroup(id int64) *apierr.Error {
	g, err := placementGroups.find(t.w, id)
	if err != nil {
		return err
	}
	if members := t.w.membersOf(g.ID); len(members) > 0 {
		return apierr.Errorf("resource_in_use", "placement group %d holds server %d; remove its servers first", g.ID, members[0])
	}
	placementGroups.table(t.w).Del(g.ID)
	return nil
}

// AddServerToPlacementGroup adds a stopped server that is in no group to
// a group with room; the server runs once the action ends, as it does
// live: terraform-provider-hcloud v1.68.0's acceptance test adds a server
// that is off (TestAccServerResource_PlacementGroup, "Add Placement Group
// back") and reads it running, though the provider starts nothing. A
// server with no network interface stays off.
func (t *Tx) AddServerToPlacementGroup(id int64, req schema.ServerActionAddToPlacementGroupRequest) (schema.Action, *apierr.Error) {
	return act(t, servers, id, "add_to_placement_group", func(s *StoredServer) (step, *apierr.Error) {
		g, ok := placementGroups.table(t.w).Get(req.PlacementGroup)
		if !ok {
			return step{}, apierr.InvalidField("placement_group", "placement group %d does not exist", req.PlacementGroup)
		}
		if s.PlacementGroup != nil {
			return step{}, apierr.Errorf("already_in_placement_group", "server %d is already in placement group %d", s.ID, s.PlacementGroup.ID)
		}
		if s.Status != "off" {
			return step{}, apierr.Errorf("server_not_stopped", "server %d must be off to be added to a placement group", s.ID)
		}
		if err := t.w.roomIn(g); err != nil {
			return step{}, err
		}
		fin := Finish{}
		if t.w.HasInterface(s) {
			fin = Finish{ServerStatus: "running", ServerStatusOnError: "off"}
		}
		return step{apply: func() { s.PlacementGroup = &schema.PlacementGroup{ID: g.ID} }, finish: fin}, nil
	})
}

// RemoveServerFromPlacementGroup takes a stopped server out of its group.
// The description names no precondition; the Terraform provider's source
// says a server must be shut down first (internal/server/resource.go,
// setPlacementGroup), and fakecloud holds it to that.
func (t *Tx) RemoveServerFromPlacementGroup(id int64) (schema.Action, *apierr.Error) {
	return act(t, servers, id, "remove_from_placement_group", func(s *StoredServer) (step, *apierr.Error) {
		if s.PlacementGroup == nil {
			return step{}, apierr.Errorf(apierr.CodeInvalidInput, "server %d is in no placement group", s.ID)
		}
		if s.Status != "off" {
			return step{}, apierr.Errorf("server_not_stopped", "server %d must be off to be removed from its placement group", s.ID)
		}
		return step{apply: func() { s.PlacementGroup = nil }}, nil
	})
}

// roomIn answers placement_group_member_limit_reached for a full group.
func (w *project) roomIn(g *schema.PlacementGroup) *apierr.Error {
	if len(w.membersOf(g.ID)) >= maxSpreadMembers {
		return apierr.Errorf("placement_group_member_limit_reached", "placement group with ID %d contains already %d servers", g.ID, maxSpreadMembers)
	}
	return nil
}

// membersOf lists the servers in a group, in ID order.
func (w *project) membersOf(group int64) []int64 {
	out := []int64{}
	for s := range w.Servers.Values() {
		if s.PlacementGroup != nil && s.PlacementGroup.ID == group {
			out = append(out, s.ID)
		}
	}
	return out
}

// viewPlacementGroup is a placement group as the API shows it, with its
// servers.
func (w *project) viewPlacementGroup(g *schema.PlacementGroup) schema.PlacementGroup {
	v := *g
	v.Labels = CopyLabels(g.Labels)
	v.Servers = w.membersOf(g.ID)
	return v
}
