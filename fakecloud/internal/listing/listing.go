package listing

import (
	"cmp"
	"slices"
	"strings"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/labelselector"
)

// Query holds what every list endpoint shares: the page, the sort
// and the filters by label selector and name.
type Query struct {
	Page, PerPage int
	Sort          []string // field:dir, validated against the endpoint's keys
	Selector      labelselector.Selector
	HasSelector   bool
	Name          string
	HasName       bool
}

// Keeps reports whether a resource of the name and labels passes the
// query's filters.
func (q Query) Keeps(name string, labels map[string]string) bool {
	return (!q.HasName || name == q.Name) && (!q.HasSelector || q.Selector.Matches(labels))
}

// Cut returns the query's page of items (never nil, so it encodes as []);
// a page past the end, however far, is empty.
func Cut[T any](items []T, q Query) []T {
	total := len(items)
	start := total
	if q.Page-1 <= total/q.PerPage {
		start = min((q.Page-1)*q.PerPage, total)
	}
	end := min(start+q.PerPage, total)
	return append(make([]T, 0, end-start), items[start:end]...)
}

// SortKeys order items by the sort parameter, given comparison functions per
// sortable field. Items not otherwise ordered keep ascending ID order.
type SortKeys[T any] map[string]func(a, b T) int

// ApplySort sorts items by the sort parameter, refusing an unknown key.
func ApplySort[T any](items []T, spec []string, keys SortKeys[T]) *apierr.Error {
	type cmpFn = func(a, b T) int
	var fns []cmpFn
	var f apierr.Fields
	for _, s := range spec {
		field, dir, _ := strings.Cut(s, ":")
		fn, ok := keys[field]
		if !ok || (dir != "" && dir != "asc" && dir != "desc") {
			f.Add("sort", "%q is not a valid sort; use one of %s with an optional :asc or :desc", s, strings.Join(sortedKeys(keys), ", "))
			continue
		}
		if dir == "desc" {
			fns = append(fns, func(a, b T) int { return fn(b, a) })
		} else {
			fns = append(fns, fn)
		}
	}
	if err := f.Err(); err != nil {
		return err
	}
	if len(fns) == 0 {
		return nil
	}
	slices.SortStableFunc(items, func(a, b T) int {
		for _, fn := range fns {
			if c := fn(a, b); c != 0 {
				return c
			}
		}
		return 0
	})
	return nil
}

func sortedKeys[T any](m SortKeys[T]) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ByIDNameCreated are the sort keys shared by most resources.
func ByIDNameCreated[T any](id func(T) int64, name func(T) string, created func(T) int64) SortKeys[T] {
	return SortKeys[T]{
		"id":      func(a, b T) int { return cmp.Compare(id(a), id(b)) },
		"name":    func(a, b T) int { return cmp.Compare(name(a), name(b)) },
		"created": func(a, b T) int { return cmp.Compare(created(a), created(b)) },
	}
}

// Page sorts the selected items by the query, cuts its page and shows it
// with view; it returns the page and how many items were selected.
func Page[T, V any](items []T, q Query, keys SortKeys[T], view func(T) V) ([]V, int, *apierr.Error) {
	if err := ApplySort(items, q.Sort, keys); err != nil {
		return nil, 0, err
	}
	page := Cut(items, q)
	out := make([]V, 0, len(page))
	for _, it := range page {
		out = append(out, view(it))
	}
	return out, len(items), nil
}
