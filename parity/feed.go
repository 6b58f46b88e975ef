package parity

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// The feed checks test what the CCM's change feed believes of GET
// /servers/actions (docs/explanation/api-economy.md). They read
// through the quiet client: what they see depends on the project and on
// timing, so only their verdicts go into the snapshot, with the evidence.

// listActions is one family's GET /{family}/actions.
type listActions func(ctx context.Context, opts hcloud.ActionListOpts) ([]*hcloud.Action, *hcloud.Response, error)

func (s *session) actionsOf(family string) listActions {
	switch family {
	case "networks":
		return s.quiet.Network.Action.List
	case "primary_ips":
		return s.quiet.PrimaryIP.Action.List
	}
	return s.quiet.Server.Action.List
}

// refused turns the API's error answer to a check's listing into the
// evidence of an unknown verdict: the check could not look. Any other
// error (a cancelled context, the network) ends the scenario.
func refused(what string, err error) (string, bool) {
	var e hcloud.Error
	if errors.As(err, &e) {
		return fmt.Sprintf("%s answered %s", what, e.Code), true
	}
	return "", false
}

// feedPages is how many pages of 50 a look at the newest actions reads.
const feedPages = 3

// feedLooks is how often check 2 looks for a change's action before it
// says there is none.
const feedLooks = 3

// feedChange is check 2 for one change to the server: did it leave a new
// action naming the server in GET /servers/actions, newest first, as the
// CCM reads it?
func (s *session) feedChange(ctx context.Context, change string, server int64) error {
	claim := change + " leaves an action naming the server in GET /servers/actions"
	var found []string
	looks := 0
	err := poll(ctx, s.t.Clock, s.t.Timing.Poll, (feedLooks-1)*s.t.Timing.Poll, func() (bool, error) {
		looks++
		var err error
		found, err = s.newActionsNaming(ctx, server)
		return len(found) > 0, err
	})
	evidence, refusedErr := refused("GET /servers/actions?sort=started:desc", err)
	switch {
	case refusedErr:
		s.verdict("2/"+change, claim, Unknown, evidence)
	case err == nil:
		s.verdict("2/"+change, claim, Holds, fmt.Sprintf("new: %s (look %d)", strings.Join(found, ", "), looks))
	case errors.Is(err, errNotWithin):
		s.verdict("2/"+change, claim, DoesNotHold, fmt.Sprintf("no new action naming the server in %d looks at the newest %d, %s apart", looks, feedPages*50, s.t.Timing.Poll))
	default:
		return fmt.Errorf("check 2, %s: %w", change, err)
	}
	return nil
}

// newActionsNaming lists the newest server actions and returns the
// commands of those naming the server not seen before, oldest first.
func (s *session) newActionsNaming(ctx context.Context, server int64) ([]string, error) {
	var found []*hcloud.Action
	for page := 1; page <= feedPages; page++ {
		actions, _, err := s.quiet.Server.Action.List(ctx, hcloud.ActionListOpts{
			ListOpts: hcloud.ListOpts{Page: page, PerPage: 50}, Sort: []string{"started:desc", "id:desc"}})
		if err != nil {
			return nil, err
		}
		for _, a := range actions {
			if names(a, hcloud.ActionResourceTypeServer, server) && !s.feedSeen[a.ID] {
				s.feedSeen[a.ID] = true
				found = append(found, a)
			}
		}
		if len(actions) < 50 {
			break
		}
	}
	slices.SortFunc(found, func(a, b *hcloud.Action) int {
		return cmp.Or(a.Started.Compare(b.Started), cmp.Compare(a.ID, b.ID))
	})
	commands := make([]string, len(found))
	for i, a := range found {
		commands[i] = a.Command
	}
	return commands, nil
}

func names(a *hcloud.Action, kind hcloud.ActionResourceType, id int64) bool {
	for _, r := range a.Resources {
		if r.Type == kind && r.ID == id {
			return true
		}
	}
	return false
}

// listedUnder looks for one action in /{family}/actions by its ID.
// Unknown when the API ignored the id filter (other actions came back).
func (s *session) listedUnder(ctx context.Context, family string, id int64) (string, string, error) {
	actions, _, err := s.actionsOf(family)(ctx, hcloud.ActionListOpts{ID: []int64{id}})
	if evidence, ok := refused("GET /"+family+"/actions?id=", err); ok {
		return Unknown, evidence, nil
	}
	if err != nil {
		return "", "", fmt.Errorf("list /%s/actions?id=: %w", family, err)
	}
	for _, a := range actions {
		if a.ID != id {
			return Unknown, fmt.Sprintf("GET /%s/actions?id= answered other actions too: the filter was ignored", family), nil
		}
	}
	if len(actions) == 0 {
		return DoesNotHold, fmt.Sprintf("GET /%s/actions?id= does not list it", family), nil
	}
	return Holds, fmt.Sprintf("GET /%s/actions?id= lists it (%s, resources %s)", family, actions[0].Command, resourceKinds(actions[0])), nil
}

func resourceKinds(a *hcloud.Action) string {
	kinds := make([]string, len(a.Resources))
	for i, r := range a.Resources {
		kinds[i] = string(r.Type)
	}
	return strings.Join(kinds, "+")
}

// checkListed is check 4 for one action a step started.
func (s *session) checkListed(ctx context.Context, check, claim, family string, id int64) error {
	verdict, evidence, err := s.listedUnder(ctx, family, id)
	if err != nil {
		return fmt.Errorf("check %s: %w", check, err)
	}
	s.verdict(check, claim, verdict, evidence)
	return nil
}

// checkDeleteListed is check 3: is delete_server listed at once after the
// delete, and still after the feed wait?
func (s *session) checkDeleteListed(ctx context.Context, id int64) error {
	claim := "delete_server is listed in GET /servers/actions at once after the delete"
	if err := s.checkListed(ctx, "3/at-once", claim, "servers", id); err != nil {
		return err
	}
	if err := s.t.Clock.Sleep(ctx, s.t.Timing.FeedWait); err != nil {
		return err
	}
	verdict, evidence, err := s.listedUnder(ctx, "servers", id)
	if err != nil {
		return fmt.Errorf("check 3: %w", err)
	}
	s.verdict("3/after-wait", "delete_server is still listed in GET /servers/actions after the feed wait", verdict,
		fmt.Sprintf("after %s: %s", s.t.Timing.FeedWait, evidence))
	return nil
}

// checkOrder is check 1: in GET /servers/actions?sort=id:asc, do the
// started times never go down, for the kit's own actions and for the
// first page of the whole listing?
func (s *session) checkOrder(ctx context.Context) error {
	own := slices.Compact(slices.Sorted(slices.Values(s.started)))
	if len(own) > 50 {
		own = own[:50]
	}
	for _, c := range []struct {
		check, whose, query string
		ids                 []int64
	}{
		{"1/own", "the kit's own actions", "GET /servers/actions?id=&sort=id:asc", own},
		{"1/first-page", "the first page of the whole listing", "GET /servers/actions?sort=id:asc", nil},
	} {
		claim := "in GET /servers/actions?sort=id:asc the started times never go down: " + c.whose
		actions, _, err := s.quiet.Server.Action.List(ctx, hcloud.ActionListOpts{ID: c.ids, Sort: []string{"id:asc"}, ListOpts: hcloud.ListOpts{PerPage: 50}})
		evidence, isRefused := refused(c.query, err)
		switch {
		case isRefused:
			s.verdict(c.check, claim, Unknown, evidence)
		case err != nil:
			return fmt.Errorf("check 1: %w", err)
		case c.ids != nil && slices.ContainsFunc(actions, func(a *hcloud.Action) bool { return !slices.Contains(c.ids, a.ID) }):
			s.verdict(c.check, claim, Unknown, "the id filter was ignored")
		default:
			verdict, evidence := orderVerdict(actions)
			s.verdict(c.check, claim, verdict, evidence)
		}
	}
	return nil
}

// orderVerdict judges a listing sorted by ID: holds when no action
// started before the one listed ahead of it.
func orderVerdict(actions []*hcloud.Action) (string, string) {
	if len(actions) < 2 {
		return Unknown, fmt.Sprintf("%d actions listed: nothing to compare", len(actions))
	}
	back, worst := 0, time.Duration(0)
	for i := 1; i < len(actions); i++ {
		if d := actions[i-1].Started.Sub(actions[i].Started); d > 0 {
			back, worst = back+1, max(worst, d)
		}
	}
	if back == 0 {
		return Holds, fmt.Sprintf("%d actions in ID order, started never earlier than the one before", len(actions))
	}
	return DoesNotHold, fmt.Sprintf("%d actions in ID order, %d started earlier than the one before, by up to %s", len(actions), back, worst)
}

// reachAim is how far back the CCM needs /servers/actions to go: it
// treats a poll more than 20 min after the last as a gap.
const reachAim = 20 * time.Minute

// checkReach is check 5: how far back does GET /servers/actions go? The
// oldest started time on the first page of sort=started:asc, as an age
// against the answer's Date (the API's clock).
func (s *session) checkReach(ctx context.Context) error {
	actions, resp, err := s.quiet.Server.Action.List(ctx, hcloud.ActionListOpts{Sort: []string{"started:asc"}, ListOpts: hcloud.ListOpts{PerPage: 50}})
	claim := fmt.Sprintf("GET /servers/actions reaches back at least %s", reachAim)
	if evidence, ok := refused("GET /servers/actions?sort=started:asc", err); ok {
		s.verdict("5/reach", claim, Unknown, evidence)
		return nil
	}
	if err != nil {
		return fmt.Errorf("check 5: %w", err)
	}
	date, derr := http.ParseTime(resp.Header.Get("Date"))
	switch {
	case len(actions) == 0:
		s.verdict("5/reach", claim, Unknown, "no action listed")
	case derr != nil:
		s.verdict("5/reach", claim, Unknown, "the answer has no Date")
	default:
		age := date.Sub(actions[0].Started)
		if age >= reachAim {
			s.verdict("5/reach", claim, Holds, fmt.Sprintf("the oldest listed action started %s before the answer", age))
		} else {
			s.verdict("5/reach", claim, Unknown, fmt.Sprintf("the oldest listed action started %s before the answer: the project may hold nothing older", age))
		}
	}
	return nil
}
