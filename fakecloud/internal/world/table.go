package world

import (
	"iter"
	"slices"
)

// Table holds one kind of resource by ID and keeps IDs in ascending order,
// which is the API's default list order.
type Table[T any] struct {
	byID map[int64]*T
	ids  []int64
}

func NewTable[T any]() Table[T] { return Table[T]{byID: map[int64]*T{}} }

func (t *Table[T]) Get(id int64) (*T, bool) {
	v, ok := t.byID[id]
	return v, ok
}

// Put stores v under id; IDs are handed out ascending, so appending keeps order.
func (t *Table[T]) Put(id int64, v *T) {
	if _, ok := t.byID[id]; !ok {
		if n := len(t.ids); n > 0 && t.ids[n-1] > id {
			i, _ := slices.BinarySearch(t.ids, id)
			t.ids = slices.Insert(t.ids, i, id)
		} else {
			t.ids = append(t.ids, id)
		}
	}
	t.byID[id] = v
}

func (t *Table[T]) Del(id int64) {
	if _, ok := t.byID[id]; !ok {
		return
	}
	delete(t.byID, id)
	if i, found := slices.BinarySearch(t.ids, id); found {
		t.ids = slices.Delete(t.ids, i, i+1)
	}
}

// All returns the resources in ascending ID order.
func (t *Table[T]) All() []*T {
	out := make([]*T, 0, len(t.ids))
	for _, id := range t.ids {
		out = append(out, t.byID[id])
	}
	return out
}

// Values yields the resources in ascending ID order without a copy; the
// table must not change while it does.
func (t *Table[T]) Values() iter.Seq[*T] {
	return func(yield func(*T) bool) {
		for _, id := range t.ids {
			if !yield(t.byID[id]) {
				return
			}
		}
	}
}

// Find returns the first resource, in ID order, for which match is true.
func (t *Table[T]) Find(match func(*T) bool) (*T, bool) {
	for _, id := range t.ids {
		if v := t.byID[id]; match(v) {
			return v, true
		}
	}
	return nil, false
}
