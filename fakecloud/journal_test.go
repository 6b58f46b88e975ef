package fakecloud

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// TestCountersExactUnderConcurrency: every request is counted once.
func TestCountersExactUnderConcurrency(t *testing.T) {
	f := newFixture(t, Options{RateLimit: -1})
	const workers, each = 8, 50
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				if _, _, err := f.client.Location.GetByID(t.Context(), 1); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got := f.fc.Requests("GET", "/locations/{id}"); got != workers*each {
		t.Errorf("counted %d, want %d", got, workers*each)
	}
	if got := len(f.fc.Journal(JournalFilter{Template: "/locations/{id}"})); got != workers*each {
		t.Errorf("journal has %d, want %d", got, workers*each)
	}
}

// TestJournalNamesStartedActions: a request's journal entry names the
// commands of the actions it started, also when a fault answered an error
// after the change (after_commit), and none when it was refused.
func TestJournalNamesStartedActions(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	_, servers := lbWorld(t, f, 1)
	f.fc.ClearJournal()
	opts := hcloud.LoadBalancerCreateOpts{Name: "lb", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"}}
	res, _, err := f.client.LoadBalancer.Create(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.fc.AddFault(Rule{Method: "POST", Path: "/load_balancers/{id}/actions/add_target", Status: 503, AfterCommit: true, Count: 1}); err != nil {
		t.Fatal(err)
	}
	_, _, _ = f.client.LoadBalancer.AddServerTarget(ctx, res.LoadBalancer, hcloud.LoadBalancerAddServerTargetOpts{Server: servers[0]})
	_, _, _ = f.client.LoadBalancer.Create(ctx, opts) // the name is taken now
	var got []string
	for _, e := range f.fc.Journal(JournalFilter{Method: "POST"}) {
		got = append(got, fmt.Sprintf("%s %d %v", e.Template, e.Status, e.Actions))
	}
	want := []string{
		"/load_balancers 201 [create_load_balancer]",
		"/load_balancers/{id}/actions/add_target 503 [add_target]",
		"/load_balancers 409 []",
	}
	if !slices.Equal(got, want) {
		t.Errorf("journal\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
