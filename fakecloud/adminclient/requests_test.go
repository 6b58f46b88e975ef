package adminclient_test

import (
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/adminclient"
)

// apiGet sends one API request straight to fakecloud's handler.
func apiGet(fc *fakecloud.Server, path string) {
	req := httptest.NewRequest("GET", "/v1"+path, nil)
	req.Header.Set("Authorization", "Bearer "+fakecloud.DefaultToken)
	fc.ServeHTTP(httptest.NewRecorder(), req)
}

func TestRateLimit(t *testing.T) {
	fc, c := start(t, fakecloud.Options{RateLimit: 100})
	ctx := t.Context()
	got, err := c.RateLimit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(adminclient.RateLimit{Enabled: true, Limit: 100, Refill: 100.0 / 3600, Remaining: 100}, got); diff != "" {
		t.Errorf("RateLimit (-want +got):\n%s", diff)
	}
	remaining, refill := 7, 2.5
	got, err = c.SetRateLimit(ctx, fakecloud.RateLimitSet{Remaining: &remaining, Refill: &refill})
	if err != nil {
		t.Fatal(err)
	}
	limit, left, rate, on := fc.RateLimit()
	want := adminclient.RateLimit{Enabled: on, Limit: limit, Refill: rate, Remaining: left}
	if diff := cmp.Diff(want, got); diff != "" || left != 7 || rate != 2.5 {
		t.Errorf("SetRateLimit (-fakecloud +client):\n%s", diff)
	}
	if _, err := c.SetRateLimit(ctx, fakecloud.RateLimitSet{Remaining: new(-1)}); !adminclient.IsError(err, "invalid_input") {
		t.Errorf("a negative budget: %v, want invalid_input", err)
	}

	_, off := start(t, fakecloud.Options{RateLimit: -1})
	if got, err := off.RateLimit(ctx); err != nil || got.Enabled {
		t.Errorf("rate limiting off: %+v %v", got, err)
	}
}

func TestJournal(t *testing.T) {
	fc, c := start(t, fakecloud.Options{})
	ctx := t.Context()
	for _, path := range []string{"/servers", "/locations", "/servers/1", "/servers"} {
		apiGet(fc, path)
	}
	tests := []struct {
		name   string
		filter fakecloud.JournalFilter
		want   []string
	}{
		{"all", fakecloud.JournalFilter{}, []string{"/servers", "/locations", "/servers/1", "/servers"}},
		{"template", fakecloud.JournalFilter{Template: "/servers"}, []string{"/servers", "/servers"}},
		{"path prefix", fakecloud.JournalFilter{Path: "/servers/"}, []string{"/servers/1"}},
		{"status", fakecloud.JournalFilter{Status: 404}, []string{"/servers/1"}},
		{"method", fakecloud.JournalFilter{Method: "POST"}, nil},
		{"since", fakecloud.JournalFilter{Since: 2}, []string{"/servers/1", "/servers"}},
		{"limit", fakecloud.JournalFilter{Limit: 1}, []string{"/servers"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries, err := c.Journal(ctx, tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range entries {
				got = append(got, e.Path)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
		})
	}
	if entries, err := c.Journal(ctx, fakecloud.JournalFilter{}); err != nil || !cmp.Equal(fc.Journal(fakecloud.JournalFilter{}), entries) {
		t.Errorf("Journal differs from fakecloud's: %v", err)
	}
	if _, err := c.Journal(ctx, fakecloud.JournalFilter{Status: -1}); !adminclient.IsError(err, "invalid_input") {
		t.Errorf("a negative status: %v, want invalid_input", err)
	}
	if err := c.ClearJournal(ctx); err != nil {
		t.Fatal(err)
	}
	if got := fc.Journal(fakecloud.JournalFilter{}); len(got) != 0 {
		t.Errorf("journal after clearing: %+v", got)
	}
}

func TestCounters(t *testing.T) {
	fc, c := start(t, fakecloud.Options{})
	ctx := t.Context()
	apiGet(fc, "/servers")
	apiGet(fc, "/servers")
	got, err := c.Counters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []fakecloud.Counter{{Method: "GET", Template: "/servers", Status: 200, Count: 2}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Counters (-want +got):\n%s", diff)
	}
	if err := c.ResetCounters(ctx); err != nil {
		t.Fatal(err)
	}
	if got := fc.Counters(); len(got) != 0 {
		t.Errorf("counters after resetting: %+v", got)
	}
}
