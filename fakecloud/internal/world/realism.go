package world

import (
	"cmp"
	"slices"
	"time"
)

// Pessimistic reports whether the realism in force takes the unhelpful
// reading.
func (w *project) Pessimistic() bool { return (w.Realism.Mode == RealismPessimistic) }

// pessimisticActionBase is where pessimistic action IDs start: 15 digits,
// as the live API's (606028482673874 was seen).
const pessimisticActionBase = 600_000_000_000_000

// pessimisticActionID is a large action ID only roughly in time order: the
// started time in milliseconds, moved by up to 30 s either way, so an
// action may get a lower ID than one started before it. The kind's
// counter holds the largest, so a switch back to optimistic IDs goes on
// above it.
func (w *project) pessimisticActionID() int64 {
	ms := w.Now().UnixMilli() - time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	for {
		id := pessimisticActionBase + (ms+int64(w.Rng.IntN(60_001))-30_000)*16 + int64(w.Rng.IntN(16))
		if _, taken := w.Actions.Get(id); !taken {
			w.LastID["action"] = max(w.LastID["action"], id) // an export's counter covers every ID
			return id
		}
	}
}

// Listed drops, under pessimistic realism, the finished actions older than
// the retention from a listing.
func (w *project) Listed(items []*StoredAction) []*StoredAction {
	if !(w.Realism.Mode == RealismPessimistic) {
		return items
	}
	cutoff := w.Now().Add(-time.Duration(w.Realism.ActionRetention))
	return slices.DeleteFunc(items, func(a *StoredAction) bool { return a.Finished != nil && a.Finished.Before(cutoff) })
}

// TieOrder, under pessimistic realism, puts items in an order of their
// own before a sort, so items with equal sort keys do not come in ID
// order. The order is the same for every request, so pages still fit.
func TieOrder[T any](w *project, items []T, id func(T) int64) {
	if !(w.Realism.Mode == RealismPessimistic) {
		return
	}
	slices.SortFunc(items, func(a, b T) int {
		return cmp.Compare(scramble(id(a)^int64(w.seed)), scramble(id(b)^int64(w.seed)))
	})
}

// scramble is a fixed bijective mix of an ID (splitmix64's finaliser).
func scramble(v int64) uint64 {
	x := uint64(v)
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
