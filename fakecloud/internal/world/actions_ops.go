package world

import (
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

// Action is the action with the ID; with a kind, only if it names a
// resource of the kind (and of the resource ID, unless 0). Reading an
// action counts as a poll of it.
func (t *Tx) Action(id int64, kind string, resource int64) (schema.Action, *apiError) {
	w := t.w
	a, ok := w.actions.get(id)
	if !ok || (kind != "" && !actionTouches(a, kind, resource)) {
		return schema.Action{}, notFound("action", id)
	}
	w.polled(a)
	w.settle()
	return w.viewAction(a), nil
}

// ActionFilter selects actions: by the kind and resource they name (any,
// if empty and 0), by IDs given as the query gives them, by status.
type ActionFilter struct {
	Kind     string
	Resource int64
	IDs      []string
	Statuses []string
}

// Actions lists the actions a query and filter select, one page of them,
// and how many they select in all. Listing an action counts as a poll.
func (t *Tx) Actions(q ListQuery, filter ActionFilter) ([]schema.Action, int, *apiError) {
	w := t.w
	var f fieldErrors
	var ids []int64
	for _, v := range filter.IDs {
		id, ok := parseID(v)
		switch {
		case !ok:
			f.add("id", "%q is not a valid ID", v)
		case slices.Contains(ids, id):
			f.add("id", "%d is listed twice", id)
		}
		ids = append(ids, id)
	}
	for _, st := range filter.Statuses {
		if st != "running" && st != "success" && st != "error" {
			f.add("status", "%q is not one of running, success, error", st)
		}
	}
	if err := f.err(); err != nil {
		return nil, 0, err
	}
	var items []*StoredAction
	if len(ids) > 0 {
		for _, id := range ids {
			if a, ok := w.actions.get(id); ok {
				items = append(items, a)
			}
		}
		slices.SortFunc(items, func(a, b *StoredAction) int { return int(a.ID - b.ID) })
	} else {
		items = w.actions.all()
	}
	for _, a := range items {
		w.polled(a)
	}
	w.settle()
	items = slices.DeleteFunc(w.listed(items), func(a *StoredAction) bool {
		return (filter.Kind != "" && !actionTouches(a, filter.Kind, filter.Resource)) ||
			(len(filter.Statuses) > 0 && !slices.Contains(filter.Statuses, a.Status))
	})
	if len(q.Sort) > 0 {
		tieOrder(w, items, func(a *StoredAction) int64 { return a.ID })
	}
	if err := ApplySort(items, q.Sort, actionSortKeys); err != nil {
		return nil, 0, err
	}
	page := Cut(items, q)
	out := make([]schema.Action, 0, len(page))
	for _, a := range page {
		out = append(out, w.viewAction(a))
	}
	return out, len(items), nil
}
