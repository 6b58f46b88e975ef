package world

import (
	"fmt"
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/labelselector"
)

// FirewallFinish is what the end of an apply_firewall or remove_firewall
// started by apply_to_resources or remove_from_resources does: a failed
// one takes back its change to the firewall's direct entry for the server
// (a selector's servers follow the selector, which stays).
type FirewallFinish struct {
	Server int64 `json:"server"`
	Apply  bool  `json:"apply,omitempty"`  // apply_firewall: a failure takes the server's entry out
	Direct bool  `json:"direct,omitempty"` // remove_firewall of a direct entry: a failure puts it back
	At     int   `json:"at,omitempty"`     // ... at this place in applied_to, where it was
	// Seq orders the changes to the firewall's entries: a failure takes
	// nothing back once a later one changed the same server's entry.
	Seq int64 `json:"seq,omitempty"`
}

// firewallSteps is the counter of FirewallFinish.Seq, kept with the
// world's ID counters so it survives a state file.
const firewallSteps = "firewall_step"

// FirewallActions is what a firewall's actions answer: all they started.
type FirewallActions struct {
	Actions []schema.Action `json:"actions"`
}

// checkApplyTo validates the shape of apply_to or remove_from entries,
// adding every fault to f, and returns them as a firewall keeps them.
func (w *project) checkApplyTo(f *apierr.Fields, field string, items []schema.FirewallResource) []schema.FirewallResource {
	out := make([]schema.FirewallResource, 0, len(items))
	for i, r := range items {
		switch {
		case r.Type == "server" && r.Server != nil && r.LabelSelector == nil && r.Server.ID > 0:
			out = append(out, schema.FirewallResource{Type: "server", Server: &schema.FirewallResourceServer{ID: r.Server.ID}})
		case r.Type == "label_selector" && r.LabelSelector != nil && r.Server == nil:
			if _, err := labelselector.Parse(r.LabelSelector.Selector); err != nil {
				f.Add(field, "entry %d: label selector %q: %v", i, r.LabelSelector.Selector, err)
				continue
			}
			out = append(out, schema.FirewallResource{Type: "label_selector", LabelSelector: &schema.FirewallResourceLabelSelector{Selector: r.LabelSelector.Selector}})
		case r.Type != "server" && r.Type != "label_selector":
			f.Add(field, "entry %d: type %q is not one of server, label_selector", i, r.Type)
		default:
			f.Add(field, "entry %d: type %s takes %s and nothing else", i, r.Type, r.Type)
		}
		if len(r.AppliedToResources) > 0 {
			f.Add(field, "entry %d: applied_to_resources is what the API answers, not what it takes", i)
		}
	}
	return out
}

// planApply checks that new entries may be applied to a firewall, and
// returns the servers it starts to apply to, in ID order: each server
// exists (firewall_resource_not_found), has a public interface
// (private_net_only_server) and is named once (server_already_added); no
// entry is there already (firewall_already_applied); and no server ends
// with more than five firewalls. notFound is the status of a missing
// server's answer: 422 creating a firewall, 404 applying one.
func (w *project) planApply(fw *schema.Firewall, entries []schema.FirewallResource, notFound int) ([]*StoredServer, *apierr.Error) {
	seen := map[string]bool{}
	for _, e := range entries {
		key := entryKey(e)
		if seen[key] {
			if e.Type == "server" {
				return nil, apierr.Errorf("server_already_added", "server %d is named more than once", e.Server.ID)
			}
			return nil, apierr.InvalidField("apply_to", "label selector %q is named more than once", e.LabelSelector.Selector)
		}
		seen[key] = true
		if slices.ContainsFunc(fw.AppliedTo, func(o schema.FirewallResource) bool { return entryKey(o) == key }) {
			return nil, apierr.Errorf("firewall_already_applied", "firewall %d is already applied to %s", fw.ID, key)
		}
		if e.Type != "server" {
			continue
		}
		s, ok := w.Servers.Get(e.Server.ID)
		if !ok {
			err := apierr.Errorf("firewall_resource_not_found", "server %d was not found", e.Server.ID)
			err.Status = notFound
			return nil, err
		}
		if s.PublicNet.IPv4.IP == "" && s.PublicNet.IPv6.IP == "" {
			return nil, apierr.Errorf("private_net_only_server", "server %d has no public interface for a firewall", s.ID)
		}
	}
	after := schema.Firewall{ID: fw.ID, AppliedTo: append(slices.Clone(fw.AppliedTo), entries...)}
	var gained []*StoredServer
	for _, s := range w.Servers.All() {
		if appliesTo(fw, s) || !appliesTo(&after, s) {
			continue
		}
		if n := len(w.firewallsOf(s)); n >= maxFirewallsPerServer {
			return nil, apierr.LimitExceeded("firewalls_per_server", "server %d has %d firewalls, the most a server has", s.ID, n)
		}
		gained = append(gained, s)
	}
	return gained, nil
}

// entryKey names an applied_to entry: server 42, or label selector a=b.
func entryKey(e schema.FirewallResource) string {
	if e.Type == "server" && e.Server != nil {
		return fmt.Sprintf("server %d", e.Server.ID)
	}
	if e.LabelSelector != nil {
		return fmt.Sprintf("label selector %q", e.LabelSelector.Selector)
	}
	return e.Type
}

// startFirewallActions starts a command for each server, naming the
// firewall and the server; apply_firewall and remove_firewall share the
// firewall, so many run at once.
func (w *project) startFirewallActions(fw *schema.Firewall, command string, servers []*StoredServer, fin func(s *StoredServer) *FirewallFinish) []*StoredAction {
	ref := Ref{Type: "firewall", ID: fw.ID}
	out := make([]*StoredAction, 0, len(servers))
	for _, s := range servers {
		srv := Ref{Type: "server", ID: s.ID}
		refs := []Ref{ref, srv} // as a live apply_firewall names them
		if command == "remove_firewall" {
			refs = []Ref{srv, ref} // as the description's example does
		}
		var f *FirewallFinish
		if fin != nil {
			f = fin(s)
			w.LastID[firewallSteps]++
			f.Seq = w.LastID[firewallSteps]
		}
		out = append(out, w.startAction(ActionSpec{Command: command, Lock: ref, Resources: refs, Family: "firewall", Finish: Finish{Firewall: f}}))
	}
	return out
}

// applyFinish is what a failed apply_firewall of a direct entry takes
// back: the server's entry.
func applyFinish(s *StoredServer) *FirewallFinish { return &FirewallFinish{Server: s.ID, Apply: true} }

// finishFirewallAction takes back a failed apply_firewall's or
// remove_firewall's change to a direct entry, unless a later change took
// it over; a server put back must have room for it (five firewalls).
func finishFirewallAction(w *project, id int64, f Finish, ok bool) {
	fw, found := firewalls.table(w).Get(id)
	if ok || f.Firewall == nil || !found || w.laterFirewallStep(id, *f.Firewall) {
		return
	}
	direct := func(r schema.FirewallResource) bool { return isServerEntry(r, f.Firewall.Server) }
	switch {
	case f.Firewall.Apply:
		fw.AppliedTo = slices.DeleteFunc(fw.AppliedTo, direct)
	case f.Firewall.Direct && !slices.ContainsFunc(fw.AppliedTo, direct):
		if s, alive := w.Servers.Get(f.Firewall.Server); alive && len(w.firewallsOf(s)) < maxFirewallsPerServer {
			fw.AppliedTo = slices.Insert(fw.AppliedTo, min(f.Firewall.At, len(fw.AppliedTo)),
				schema.FirewallResource{Type: "server", Server: &schema.FirewallResourceServer{ID: f.Firewall.Server}})
		}
	}
}

// laterFirewallStep reports whether an action started after the one that
// ended changed the same firewall's entry for the same server: then the
// entry is that one's, and the failure takes nothing back.
func (w *project) laterFirewallStep(fw int64, f FirewallFinish) bool {
	for _, a := range w.Actions.All() {
		o := a.Finish.Firewall
		if o != nil && a.Lock == (Ref{Type: "firewall", ID: fw}) && o.Server == f.Server && o.Seq > f.Seq {
			return true
		}
	}
	return false
}

// SetFirewallRules replaces a firewall's rules: a set_firewall_rules
// action, which holds the firewall and puts the old rules back if it
// fails, and an apply_firewall for each server the firewall applies to.
func (t *Tx) SetFirewallRules(id int64, req schema.FirewallActionSetRulesRequest) (FirewallActions, *apierr.Error) {
	w := t.w
	if req.Rules == nil {
		return FirewallActions{}, apierr.InvalidField("rules", "is required; [] removes every rule")
	}
	var servers []*StoredServer
	set, err := act(t, firewalls, id, "set_firewall_rules", func(fw *schema.Firewall) (step, *apierr.Error) {
		var f apierr.Fields
		rules := checkRules(&f, req.Rules)
		if err := f.Err(); err != nil {
			return step{}, err
		}
		for _, s := range w.Servers.All() {
			if appliesTo(fw, s) {
				servers = append(servers, s)
			}
		}
		return step{apply: func() { fw.Rules = rules }}, nil
	})
	if err != nil {
		return FirewallActions{}, err
	}
	fw, _ := firewalls.table(w).Get(id)
	return FirewallActions{Actions: append([]schema.Action{set}, w.viewActions(w.startFirewallActions(fw, "apply_firewall", servers, nil))...)}, nil
}

// ApplyFirewallToResources applies a firewall to more servers and label
// selectors: an apply_firewall for each server it starts to apply to.
func (t *Tx) ApplyFirewallToResources(id int64, req schema.FirewallActionApplyToResourcesRequest) (FirewallActions, *apierr.Error) {
	w := t.w
	fw, entries, err := w.firewallRequest(id, "apply_to", req.ApplyTo)
	if err != nil {
		return FirewallActions{}, err
	}
	servers, err := w.planApply(fw, entries, 404)
	if err != nil {
		return FirewallActions{}, err
	}
	fw.AppliedTo = append(fw.AppliedTo, entries...)
	return FirewallActions{Actions: w.viewActions(w.startFirewallActions(fw, "apply_firewall", servers, applyFinish))}, nil
}

// RemoveFirewallFromResources removes servers and label selectors from a
// firewall: a remove_firewall for each server it no longer applies to. A
// server the firewall reaches only through a label selector answers
// firewall_managed_by_label_selector, with the live message
// (terraform-provider-hcloud issue 911); one it does not reach at all,
// or that does not exist, firewall_resource_not_found.
func (t *Tx) RemoveFirewallFromResources(id int64, req schema.FirewallActionRemoveFromResourcesRequest) (FirewallActions, *apierr.Error) {
	w := t.w
	fw, entries, err := w.firewallRequest(id, "remove_from", req.RemoveFrom)
	if err != nil {
		return FirewallActions{}, err
	}
	for _, e := range entries {
		key := entryKey(e)
		if slices.ContainsFunc(fw.AppliedTo, func(o schema.FirewallResource) bool { return entryKey(o) == key }) {
			continue
		}
		if s, ok := w.Servers.Get(serverOfEntry(e)); ok && appliesTo(fw, s) {
			return FirewallActions{}, apierr.Errorf("firewall_managed_by_label_selector", "firewall with ID %d has been applied via label selector.", fw.ID)
		}
		err := apierr.Errorf("firewall_resource_not_found", "firewall %d is not applied to %s", fw.ID, key)
		err.Status = 404
		return FirewallActions{}, err
	}
	before := w.Servers.All()
	before = slices.DeleteFunc(before, func(s *StoredServer) bool { return !appliesTo(fw, s) })
	direct := map[int64]int{} // a direct entry's server: where the entry was
	for _, e := range entries {
		key := entryKey(e)
		at := slices.IndexFunc(fw.AppliedTo, func(o schema.FirewallResource) bool { return entryKey(o) == key })
		if at < 0 {
			continue // named twice
		}
		fw.AppliedTo = slices.Delete(fw.AppliedTo, at, at+1)
		if e.Type == "server" {
			direct[e.Server.ID] = at
		}
	}
	lost := slices.DeleteFunc(before, func(s *StoredServer) bool { return appliesTo(fw, s) })
	fin := func(s *StoredServer) *FirewallFinish {
		at, ok := direct[s.ID]
		return &FirewallFinish{Server: s.ID, Direct: ok, At: at}
	}
	return FirewallActions{Actions: w.viewActions(w.startFirewallActions(fw, "remove_firewall", lost, fin))}, nil
}

// firewallRequest finds a firewall no action holds and reads the entries
// of its apply_to or remove_from, which are required.
func (w *project) firewallRequest(id int64, field string, items []schema.FirewallResource) (*schema.Firewall, []schema.FirewallResource, *apierr.Error) {
	fw, err := firewalls.find(w, id)
	if err != nil {
		return nil, nil, err
	}
	if err := w.checkFree(Ref{Type: "firewall", ID: fw.ID}); err != nil {
		return nil, nil, err
	}
	var f apierr.Fields
	if len(items) == 0 {
		f.Add(field, "'%s' is required", field)
	}
	entries := w.checkApplyTo(&f, field, items)
	if err := f.Err(); err != nil {
		return nil, nil, err
	}
	return fw, entries, nil
}

// relabelFirewalls refuses labels that would bring a server more
// firewalls, through their selectors, than it takes.
func relabelFirewalls(w *project, s *StoredServer, labels map[string]string) *apierr.Error {
	probe := *s
	probe.Labels = labels
	n := w.firewallsApplying(&probe, nil)
	if n > maxFirewallsPerServer && n > len(w.firewallsOf(s)) {
		return apierr.LimitExceeded("firewalls_per_server", "with these labels server %d would have %d firewalls; a server has at most %d", s.ID, n, maxFirewallsPerServer)
	}
	return nil
}

// firewallsApplying counts the firewalls that apply to a server (or one
// being ordered or relabelled), leaving out those in except.
func (w *project) firewallsApplying(s *StoredServer, except map[int64]bool) int {
	n := 0
	for _, fw := range firewalls.table(w).All() {
		if appliesTo(fw, s) && !except[fw.ID] {
			n++
		}
	}
	return n
}

// serverOfEntry is the server a direct entry names, or 0.
func serverOfEntry(e schema.FirewallResource) int64 {
	if e.Type == "server" && e.Server != nil {
		return e.Server.ID
	}
	return 0
}

// orderFirewalls checks the firewalls a server order names (existing,
// once each, a public interface, at most five with those its labels
// match) and applies them once the server exists, each by an
// apply_firewall in next_actions.
func orderFirewalls(w *project, f *apierr.Fields, req ServerCreateRequest, _ schema.Location) (joinServer, *apierr.Error) {
	var fws []*schema.Firewall
	seen := map[int64]bool{}
	for _, r := range req.Firewalls {
		fw, ok := firewalls.table(w).Get(r.Firewall)
		switch {
		case !ok:
			f.Add("firewalls", "firewall %d does not exist", r.Firewall)
		case seen[r.Firewall]:
			f.Add("firewalls", "firewall %d is named more than once", r.Firewall)
		default:
			fws = append(fws, fw)
		}
		seen[r.Firewall] = true
	}
	if v4, v6 := req.PublicNet.enabled(); !v4 && !v6 && len(req.Firewalls) > 0 {
		return nil, apierr.Errorf("private_net_only_server", "a server without a public interface takes no firewall")
	}
	probe := &StoredServer{Server: schema.Server{Labels: DerefLabels(req.Labels)}}
	if n := w.firewallsApplying(probe, seen) + len(fws); n > maxFirewallsPerServer {
		return nil, apierr.LimitExceeded("firewalls_per_server", "a server has at most %d firewalls, this one would have %d", maxFirewallsPerServer, n)
	}
	if len(fws) == 0 {
		return nil, nil
	}
	return func(s *StoredServer) []*StoredAction {
		var started []*StoredAction
		for _, fw := range fws {
			fw.AppliedTo = append(fw.AppliedTo, schema.FirewallResource{Type: "server", Server: &schema.FirewallResourceServer{ID: s.ID}})
			started = append(started, w.startFirewallActions(fw, "apply_firewall", []*StoredServer{s}, applyFinish)...)
		}
		return started
	}, nil
}
