package fakecloud

import (
	"sync"
	"testing"
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
