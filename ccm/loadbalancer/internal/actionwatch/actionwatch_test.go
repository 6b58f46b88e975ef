package actionwatch

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/cloudtest"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// TestWaitersShareEachPoll: forty syncs waiting at once on actions the
// CCM started together poll on one schedule: a handful of reads between
// them, not a handful each.
func TestWaitersShareEachPoll(t *testing.T) {
	c := cloudtest.Start(t, 3, fakecloud.Options{ActionDuration: 2 * time.Second})
	const n = 40
	created := make([]*hcloud.LoadBalancerCreateResult, n)
	for i := range n {
		res, _, err := c.Client.LoadBalancer.Create(t.Context(), hcloud.LoadBalancerCreateOpts{Name: fmt.Sprintf("lb-%d", i),
			LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"}})
		if err != nil {
			t.Fatal(err)
		}
		created[i] = &res
	}
	tr := New(c.Client)
	for i, res := range created { // recorded in one go: one or two 100 ms grid slots
		tr.Started(fmt.Sprint(i), res.LoadBalancer.ID, res.Action)
	}
	c.FC.ResetCounters()
	var wg sync.WaitGroup
	for _, res := range created {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := tr.Settle(t.Context(), res.LoadBalancer.ID, 10*time.Second); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	// Polls at ages 100, 300 and 700 ms, 1.7 and 2.7 s, for each of at
	// most two grid slots.
	if polls := c.FC.Requests("GET", "/load_balancers/actions"); polls > 10 || tr.Count() != 0 {
		t.Errorf("%d polls for %d syncs waiting at once, %d actions left; want at most 10 and none", polls, n, tr.Count())
	}
}

// TestActionPollBacksOff: a running action is asked about again after
// 500 ms while a sync waits on it, 3 s otherwise, then at half its age,
// at most every 30 s.
func TestActionPollBacksOff(t *testing.T) {
	tr := New(nil)
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		age   time.Duration
		hurry bool
		want  time.Duration
	}{
		{time.Second, true, 500 * time.Millisecond},
		{10 * time.Second, true, 5 * time.Second},
		{time.Second, false, 3 * time.Second},
		{20 * time.Second, false, 10 * time.Second},
		{time.Hour, false, 30 * time.Second},
		{time.Hour, true, 30 * time.Second},
	} {
		poll := start.Add(tc.age)
		if got := tr.next(trackedAction{since: start, hurry: tc.hurry}, poll).Sub(poll); got != tc.want {
			t.Errorf("age %s, hurried %v: next poll after %s, want %s", tc.age, tc.hurry, got, tc.want)
		}
	}
}
