package lbtraffic

import (
	"testing"
	"time"
)

// TestHistoryRing: a load balancer's history keeps the last hour of
// samples, oldest first, and a sample at the time of the last replaces it.
func TestHistoryRing(t *testing.T) {
	p := New(Options{})
	s := p.statsOf(7)
	start := time.Unix(1_800_000_000, 0)
	for i := range historyLen + 5 {
		s.conns.Add(1)
		p.Sample(start.Add(time.Duration(i) * time.Second))
	}
	h := p.History(7)
	if len(h) != historyLen || !h[0].At.Equal(start.Add(5*time.Second)) || h[0].Connections != 6 || h[len(h)-1].Connections != historyLen+5 {
		t.Fatalf("history of %d samples from %v (%d connections) to %d connections; want the last %d, oldest first",
			len(h), h[0].At, h[0].Connections, h[len(h)-1].Connections, historyLen)
	}
	s.reqs.Add(3)
	p.Sample(h[len(h)-1].At)
	if again := p.History(7); len(again) != historyLen || again[len(again)-1].Requests != 3 {
		t.Errorf("a sample at the last one's time: %d samples, last with %d requests; want it replaced", len(again), again[len(again)-1].Requests)
	}
	if p.History(8) != nil {
		t.Error("a load balancer that carried nothing has a history")
	}
}

// TestStatsForgetGone: a load balancer no longer served leaves no
// counters or history behind.
func TestStatsForgetGone(t *testing.T) {
	p := New(Options{})
	p.statsOf(7).conns.Add(1)
	p.statsOf(8).conns.Add(1)
	p.Sample(time.Unix(1_800_000_000, 0))
	p.Sync([]LoadBalancer{{ID: 8}})
	if p.History(7) != nil || p.History(8) == nil {
		t.Errorf("after load balancer 7 went: histories 7 %v, 8 %v; want 7 forgotten and 8 kept", p.History(7), p.History(8))
	}
}
