package world

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/labelselector"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/listing"
)

// Firewalls filter the traffic of servers' public interfaces. A firewall
// keeps its rules and what it is applied to: servers and label
// selectors. The servers a selector matches are worked out when read, so
// applied_to_resources, and a server's public_net.firewalls, follow
// servers as they come, go and change their labels.

// maxFirewallsPerServer is how many firewalls apply to one server,
// directly or through a label selector (the description of
// apply_to_resources; the firewalls FAQ).
const maxFirewallsPerServer = 5

// firewalls is the firewall kind's handle; the registry keeps its table,
// and a snapshot its list under kinds.
var firewalls, firewallTable = ownKind("firewall", func(f *schema.Firewall) (int64, string) { return f.ID, f.Name })

// firewallKind declares firewalls: a deleted server leaves the firewalls
// applied to it, a server's view lists the firewalls that apply to it,
// and a server order may name some.
func firewallKind() kind {
	return firewalls.declare(kind{
		idBase:   1200000,
		own:      firewallTable,
		commands: []string{"set_firewall_rules", "apply_firewall", "remove_firewall"},
		forget: func(w *project, gone Ref) {
			if gone.Type != "server" {
				return
			}
			for _, fw := range firewalls.table(w).All() {
				fw.AppliedTo = slices.DeleteFunc(fw.AppliedTo, func(r schema.FirewallResource) bool { return isServerEntry(r, gone.ID) })
			}
		},
		// A restored firewall is not applied to a server deleted since.
		fit: func(w *project, id int64) {
			if fw, ok := firewalls.table(w).Get(id); ok {
				fw.AppliedTo = slices.DeleteFunc(fw.AppliedTo, func(r schema.FirewallResource) bool {
					if r.Type != "server" || r.Server == nil {
						return false
					}
					_, ok := w.Servers.Get(r.Server.ID)
					return !ok
				})
			}
		},
		finish:   finishFirewallAction,
		onServer: func(w *project, s *StoredServer, v *ServerView) { v.PublicNet.Firewalls = w.firewallsOf(s) },
		order:    orderFirewalls,
		relabel:  relabelFirewalls,
		check:    checkFirewalls,
	})
}

// isServerEntry reports whether an applied_to entry names the server
// directly.
func isServerEntry(r schema.FirewallResource, server int64) bool {
	return r.Type == "server" && r.Server != nil && r.Server.ID == server
}

// appliesTo reports whether a firewall applies to a server, directly or
// through one of its label selectors.
func appliesTo(fw *schema.Firewall, s *StoredServer) bool {
	return slices.ContainsFunc(fw.AppliedTo, func(r schema.FirewallResource) bool { return entryMatches(r, s) })
}

// entryMatches reports whether an applied_to entry takes in a server.
func entryMatches(r schema.FirewallResource, s *StoredServer) bool {
	switch {
	case r.Type == "server":
		return r.Server != nil && r.Server.ID == s.ID
	case r.LabelSelector != nil:
		sel, err := labelselector.Parse(r.LabelSelector.Selector)
		return err == nil && sel.Matches(s.Labels)
	}
	return false
}

// serversOf lists the servers an applied_to entry takes in, in ID order.
func (w *project) serversOf(r schema.FirewallResource) []*StoredServer {
	var out []*StoredServer
	for _, s := range w.Servers.All() {
		if entryMatches(r, s) {
			out = append(out, s)
		}
	}
	return out
}

// firewallsOf is a server's public_net.firewalls: each firewall that
// applies to it, pending while an apply_firewall for it runs.
func (w *project) firewallsOf(s *StoredServer) []schema.ServerFirewall {
	out := []schema.ServerFirewall{}
	for _, fw := range firewalls.table(w).All() {
		if !appliesTo(fw, s) {
			continue
		}
		status := "applied"
		if w.applying(fw.ID, s.ID) {
			status = "pending"
		}
		out = append(out, schema.ServerFirewall{ID: fw.ID, Status: status})
	}
	return out
}

// applying reports whether an apply_firewall of the firewall to the
// server is running.
func (w *project) applying(fw, server int64) bool {
	for _, id := range w.running {
		a, ok := w.Actions.Get(id)
		if ok && a.Command == "apply_firewall" && a.Status == "running" &&
			slices.Contains(a.Resources, schema.ActionResourceReference{ID: fw, Type: "firewall"}) &&
			slices.Contains(a.Resources, schema.ActionResourceReference{ID: server, Type: "server"}) {
			return true
		}
	}
	return false
}

// Firewall is the firewall with the ID.
func (t *Tx) Firewall(id int64) (schema.Firewall, *apierr.Error) {
	fw, err := firewalls.find(t.w, id)
	if err != nil {
		return schema.Firewall{}, err
	}
	return t.w.viewFirewall(fw), nil
}

// Firewalls lists the firewalls a query selects, one page of them, and
// how many it selects in all.
func (t *Tx) Firewalls(q listing.Query) ([]schema.Firewall, int, *apierr.Error) {
	items := slices.DeleteFunc(firewalls.table(t.w).All(), func(fw *schema.Firewall) bool { return !q.Keeps(fw.Name, fw.Labels) })
	keys := listing.ByIDNameCreated(func(fw *schema.Firewall) int64 { return fw.ID },
		func(fw *schema.Firewall) string { return fw.Name }, func(fw *schema.Firewall) int64 { return fw.Created.Unix() })
	return listing.Page(items, q, keys, t.w.viewFirewall)
}

// FirewallCreated is what creating a firewall answers: a
// set_firewall_rules action, done at once, when it has rules (as the live
// API answers), and an apply_firewall for each server it applies to.
type FirewallCreated struct {
	Firewall schema.Firewall `json:"firewall"`
	Actions  []schema.Action `json:"actions"`
}

// CreateFirewall makes a firewall with rules, applied to servers and
// label selectors.
func (t *Tx) CreateFirewall(req schema.FirewallCreateRequest) (FirewallCreated, *apierr.Error) {
	w := t.w
	var f apierr.Fields
	CheckName(&f, "name", req.Name)
	labels := DerefLabels(req.Labels)
	ValidateLabels(&f, "labels", labels)
	rules := checkRules(&f, req.Rules)
	entries := w.checkApplyTo(&f, "apply_to", req.ApplyTo)
	if err := f.Err(); err != nil {
		return FirewallCreated{}, err
	}
	table := firewalls.table(w)
	if NameTaken(table, func(o *schema.Firewall) string { return o.Name })(req.Name) {
		return FirewallCreated{}, apierr.NotUnique("name", "firewall name %q is already used", req.Name)
	}
	fw := &schema.Firewall{Name: req.Name, Labels: labels, Rules: rules,
		AppliedTo: []schema.FirewallResource{}, Created: w.Now().UTC().Truncate(time.Second)}
	servers, err := w.planApply(fw, entries, 0)
	if err != nil {
		return FirewallCreated{}, err
	}
	fw.ID = w.NewID("firewall") // only once nothing can refuse it: an ID taken is a change
	table.Put(fw.ID, fw)
	out := FirewallCreated{Actions: []schema.Action{}}
	if len(rules) > 0 {
		done := w.RecordDoneUnder("firewall", "set_firewall_rules", Ref{Type: "firewall", ID: fw.ID})
		out.Actions = append(out.Actions, w.ViewAction(done))
	}
	fw.AppliedTo = append(fw.AppliedTo, entries...)
	out.Actions = append(out.Actions, w.viewActions(w.startFirewallActions(fw, "apply_firewall", servers, applyFinish))...)
	out.Firewall = w.viewFirewall(fw)
	return out, nil
}

// FirewallUpdateRequest is PUT /firewalls/{id}; a name given empty is
// refused rather than ignored.
type FirewallUpdateRequest struct {
	Name   *string            `json:"name,omitempty"`
	Labels *map[string]string `json:"labels,omitempty"`
}

// UpdateFirewall renames or relabels a firewall, with no action.
func (t *Tx) UpdateFirewall(id int64, req FirewallUpdateRequest) (schema.Firewall, *apierr.Error) {
	fw, err := firewalls.find(t.w, id)
	if err != nil {
		return schema.Firewall{}, err
	}
	taken := NameTaken(firewalls.table(t.w), func(o *schema.Firewall) string { return o.Name })
	if err := RenameRelabel("firewall", req.Name, req.Labels, CheckName, taken, &fw.Name, &fw.Labels); err != nil {
		return schema.Firewall{}, err
	}
	return t.w.viewFirewall(fw), nil
}

// DeleteFirewall deletes a firewall applied to nothing: one still applied
// to a server or a label selector, even one that matches no server,
// answers resource_in_use "firewall with ID … is still in use", as the API
// does (ansible-collections/hetzner.hcloud issue 380,
// terraform-provider-hcloud issue 463).
func (t *Tx) DeleteFirewall(id int64) *apierr.Error {
	fw, err := firewalls.find(t.w, id)
	if err != nil {
		return err
	}
	if len(fw.AppliedTo) > 0 {
		return apierr.Errorf("resource_in_use", "firewall with ID %d is still in use", fw.ID)
	}
	if err := t.w.checkFree(Ref{Type: "firewall", ID: fw.ID}); err != nil {
		return err
	}
	firewalls.table(t.w).Del(fw.ID)
	return nil
}

// viewFirewall is a firewall as the API shows it: each label selector
// with the servers it matches now.
func (w *project) viewFirewall(fw *schema.Firewall) schema.Firewall {
	v := *fw
	v.Labels = CopyLabels(fw.Labels)
	v.Rules = make([]schema.FirewallRule, 0, len(fw.Rules))
	for _, r := range fw.Rules {
		r.SourceIPs = append([]string{}, r.SourceIPs...)
		r.DestinationIPs = append([]string{}, r.DestinationIPs...)
		v.Rules = append(v.Rules, r)
	}
	v.AppliedTo = make([]schema.FirewallResource, 0, len(fw.AppliedTo))
	for _, r := range fw.AppliedTo {
		e := schema.FirewallResource{Type: r.Type}
		if r.Server != nil {
			e.Server = &schema.FirewallResourceServer{ID: r.Server.ID}
		}
		if r.LabelSelector != nil {
			e.LabelSelector = &schema.FirewallResourceLabelSelector{Selector: r.LabelSelector.Selector}
			e.AppliedToResources = []schema.FirewallResource{}
			for _, s := range w.serversOf(r) {
				e.AppliedToResources = append(e.AppliedToResources, schema.FirewallResource{Type: "server", Server: &schema.FirewallResourceServer{ID: s.ID}})
			}
		}
		v.AppliedTo = append(v.AppliedTo, e)
	}
	return v
}

// checkFirewalls checks each firewall of a snapshot applies to servers
// that exist, with at most five firewalls a server takes directly.
func checkFirewalls(data json.RawMessage, c *snapshotCheck) {
	var items []*schema.Firewall
	if json.Unmarshal(data, &items) != nil {
		return
	}
	per := map[int64]int{}
	for _, fw := range items {
		if fw == nil {
			continue
		}
		for _, r := range fw.AppliedTo {
			switch {
			case r.Type == "server" && r.Server != nil:
				if !c.servers[r.Server.ID] {
					c.bad("firewall %d: applied to server %d, which does not exist", fw.ID, r.Server.ID)
				}
				if per[r.Server.ID]++; per[r.Server.ID] == maxFirewallsPerServer+1 {
					c.bad("server %d: more than %d firewalls are applied to it", r.Server.ID, maxFirewallsPerServer)
				}
			case r.Type == "label_selector" && r.LabelSelector != nil:
				if _, err := labelselector.Parse(r.LabelSelector.Selector); err != nil {
					c.bad("firewall %d: label selector %q: %v", fw.ID, r.LabelSelector.Selector, err)
				}
			default:
				c.bad("firewall %d: an applied_to entry of type %q names no server or label selector", fw.ID, r.Type)
			}
		}
	}
}
