package ratelimit

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestBucket(t *testing.T) {
	now := time.Unix(1000, 0)
	b := New(2, 0.5, func() time.Time { return now })
	var got []State
	for range 3 {
		got = append(got, b.Take())
	}
	now = now.Add(3 * time.Second) // 1.5 requests back
	got = append(got, b.Peek(), b.Take(), b.Take())
	b.Set(5, 0) // capped at the limit; no refill
	now = now.Add(time.Hour)
	got = append(got, b.Peek())
	b.Set(-1, -1) // keeps both
	got = append(got, b.Peek())
	want := []State{
		{Allowed: true, Limit: 2, Remaining: 1, Reset: 1002, Refill: 0.5},
		{Allowed: true, Limit: 2, Remaining: 0, Reset: 1004, Refill: 0.5},
		{Allowed: false, Limit: 2, Remaining: 0, Reset: 1004, Refill: 0.5},
		{Allowed: true, Limit: 2, Remaining: 1, Reset: 1004, Refill: 0.5},
		{Allowed: true, Limit: 2, Remaining: 0, Reset: 1006, Refill: 0.5},
		{Allowed: false, Limit: 2, Remaining: 0, Reset: 1006, Refill: 0.5},
		{Allowed: true, Limit: 2, Remaining: 2, Reset: 4603, Refill: 0},
		{Allowed: true, Limit: 2, Remaining: 2, Reset: 4603, Refill: 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
}

// TestBucketTinyRefill: a refill so slow that the bucket is full again
// only in centuries puts RateLimit-Reset far ahead, never in the past
// (nanoseconds of a time.Duration overflowed after 292 years).
func TestBucketTinyRefill(t *testing.T) {
	now := time.Unix(1000, 0)
	b := New(3600, 1e-12, func() time.Time { return now })
	if st := b.Take(); st.Reset != 1000+maxReset {
		t.Errorf("reset %d, want %d (100 years ahead)", st.Reset, 1000+maxReset)
	}
	b.Set(-1, 1e-6) // one request back in 11.6 days
	if st := b.Peek(); st.Reset != 1000+1_000_000 {
		t.Errorf("reset %d, want %d", st.Reset, 1000+1_000_000)
	}
}
