package world

import (
	"cmp"
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/listing"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/strict"
)

// Action is the action with the ID; with a kind, only if it is listed
// under the kind's family (and names the resource ID, unless 0). Reading an
// action counts as a poll of it.
func (t *Tx) Action(id int64, kind string, resource int64) (schema.Action, *apierr.Error) {
	w := t.w
	a, ok := w.Actions.Get(id)
	if !ok || (kind != "" && !ListedUnder(a, kind, resource)) {
		return schema.Action{}, apierr.NotFound("action", id)
	}
	w.Polled(a)
	w.Settle()
	return w.ViewAction(a), nil
}

// ActionFilter selects actions: by the family they are listed under and
// the resource they name (any, if empty and 0), by IDs given as the query gives them, by status.
type ActionFilter struct {
	Kind     string
	Resource int64
	IDs      []string
	Statuses []string
}

// Actions lists the actions a query and filter select, one page of them,
// and how many they select in all. Listing an action counts as a poll.
func (t *Tx) Actions(q listing.Query, filter ActionFilter) ([]schema.Action, int, *apierr.Error) {
	w := t.w
	var f apierr.Fields
	var ids []int64
	for _, v := range filter.IDs {
		id, ok := strict.ParseID(v)
		switch {
		case !ok:
			f.Add("id", "%q is not a valid ID", v)
		case slices.Contains(ids, id):
			f.Add("id", "%d is listed twice", id)
		}
		ids = append(ids, id)
	}
	for _, st := range filter.Statuses {
		if st != "running" && st != "success" && st != "error" {
			f.Add("status", "%q is not one of running, success, error", st)
		}
	}
	if err := f.Err(); err != nil {
		return nil, 0, err
	}
	var items []*StoredAction
	if len(ids) > 0 {
		for _, id := range ids {
			if a, ok := w.Actions.Get(id); ok {
				items = append(items, a)
			}
		}
		slices.SortFunc(items, func(a, b *StoredAction) int { return int(a.ID - b.ID) })
	} else {
		items = w.Actions.All()
	}
	for _, a := range items {
		w.Polled(a)
	}
	w.Settle()
	items = slices.DeleteFunc(w.Listed(items), func(a *StoredAction) bool {
		return (filter.Kind != "" && !ListedUnder(a, filter.Kind, filter.Resource)) ||
			(len(filter.Statuses) > 0 && !slices.Contains(filter.Statuses, a.Status))
	})
	if len(q.Sort) > 0 {
		TieOrder(w, items, func(a *StoredAction) int64 { return a.ID })
	}
	return listing.Page(items, q, actionSortKeys, w.ViewAction)
}

var actionSortKeys = listing.SortKeys[*StoredAction]{
	"id":      func(a, b *StoredAction) int { return cmp.Compare(a.ID, b.ID) },
	"command": func(a, b *StoredAction) int { return cmp.Compare(a.Command, b.Command) },
	"status":  func(a, b *StoredAction) int { return cmp.Compare(a.Status, b.Status) },
	"started": func(a, b *StoredAction) int { return a.Started.Compare(b.Started) },
	"finished": func(a, b *StoredAction) int {
		return cmp.Compare(finishedUnix(a), finishedUnix(b))
	},
	"progress": func(a, b *StoredAction) int { return cmp.Compare(a.Progress, b.Progress) },
}

func finishedUnix(a *StoredAction) int64 {
	if a.Finished == nil {
		return 1<<63 - 1
	}
	return a.Finished.Unix()
}
