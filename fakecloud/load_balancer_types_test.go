package fakecloud

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// TestLBTypeDeprecation: deprecate_load_balancer_type shows the type's
// deprecation as the API serialises it, in the listing and in the load
// balancers of the type; orders go on until unavailable_after, and are
// refused after it, while the existing load balancers keep working.
func TestLBTypeDeprecation(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{Now: clock.Now})
	ctx := t.Context()
	lb11 := &hcloud.LoadBalancerType{Name: "lb11"}
	create := func(name string, lt *hcloud.LoadBalancerType) (*hcloud.LoadBalancer, error) {
		res, _, err := f.client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{Name: name, LoadBalancerType: lt, Location: &hcloud.Location{Name: "fsn1"}})
		if err != nil {
			return nil, err
		}
		return res.LoadBalancer, nil
	}
	old, err := create("old", lb11)
	if err != nil {
		t.Fatal(err)
	}
	// Not deprecated: null, as the API sends it.
	if _, body := f.do(t, "GET", "/load_balancer_types?name=lb11", ""); !strings.Contains(string(body), `"deprecation":null`) {
		t.Errorf("lb11 before: %s, want deprecation null", body)
	}

	unavailable := clock.Now().Add(30 * 24 * time.Hour)
	if err := f.fc.Apply(Event{Type: "deprecate_load_balancer_type", LoadBalancerType: "lb11", UnavailableAfter: unavailable}); err != nil {
		t.Fatal(err)
	}
	_, body := f.do(t, "GET", "/load_balancer_types?name=lb11", "")
	if want := `"deprecation":{"announced":"2026-11-01T12:00:00Z","unavailable_after":"2026-12-01T12:00:00Z"}`; !strings.Contains(string(body), want) {
		t.Errorf("lb11 listed as %s, want %s", body, want)
	}
	types, err := f.client.LoadBalancerType.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, lt := range types {
		if deprecated := lt.Name == "lb11"; lt.IsDeprecated() != deprecated {
			t.Errorf("%s deprecated = %v, want %v", lt.Name, lt.IsDeprecated(), deprecated)
		}
	}
	got, _, err := f.client.LoadBalancer.GetByID(ctx, old.ID)
	if err != nil || !got.LoadBalancerType.IsDeprecated() || !got.LoadBalancerType.UnavailableAfter().Equal(unavailable) {
		t.Errorf("the existing load balancer's type: %+v, %v; want deprecated, unavailable after %s", got.LoadBalancerType.Deprecation, err, unavailable)
	}
	if _, err := create("before", lb11); err != nil {
		t.Errorf("create before unavailable_after: %v", err)
	}

	clock.Advance(31 * 24 * time.Hour)
	if _, err := create("after", lb11); !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) || !strings.Contains(err.Error(), "deprecated") {
		t.Errorf("create after unavailable_after: %v, want invalid_input naming the deprecation", err)
	}
	small, err := create("small", &hcloud.LoadBalancerType{Name: "lb21"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.client.LoadBalancer.ChangeType(ctx, small, hcloud.LoadBalancerChangeTypeOpts{LoadBalancerType: lb11}); !hcloud.IsError(err, "invalid_load_balancer_type") {
		t.Errorf("change_type to lb11 after unavailable_after: %v, want invalid_load_balancer_type", err)
	}
	// The load balancers of the type go on.
	if _, _, err := f.client.LoadBalancer.AddService(ctx, old, hcloud.LoadBalancerAddServiceOpts{Protocol: "tcp", ListenPort: hcloud.Ptr(80), DestinationPort: hcloud.Ptr(80)}); err != nil {
		t.Errorf("a change to a load balancer of the type: %v", err)
	}

	// An export keeps the deprecation; an import gives it back.
	data, err := f.fc.Export()
	if err != nil {
		t.Fatal(err)
	}
	g := newFixture(t, Options{Now: clock.Now})
	if err := g.fc.Import(data); err != nil {
		t.Fatal(err)
	}
	if lt, _, err := g.client.LoadBalancerType.GetByName(ctx, "lb11"); err != nil || !lt.IsDeprecated() || !lt.UnavailableAfter().Equal(unavailable) {
		t.Errorf("lb11 after import: %+v, %v", lt, err)
	}
}

// TestLBTypeDeprecationRefused: a malformed deprecate_load_balancer_type
// is refused, naming its field, and changes nothing.
func TestLBTypeDeprecationRefused(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{Now: clock.Now})
	before, _ := f.fc.Export()
	at := clock.Now().Add(time.Hour)
	for _, tt := range []struct {
		event Event
		want  string
	}{
		{Event{Type: "deprecate_load_balancer_type", UnavailableAfter: at}, "load_balancer_type: deprecate_load_balancer_type needs"},
		{Event{Type: "deprecate_load_balancer_type", LoadBalancerType: "lb11"}, "unavailable_after: deprecate_load_balancer_type needs"},
		{Event{Type: "deprecate_load_balancer_type", LoadBalancerType: "lb99", UnavailableAfter: at}, `load_balancer_type: no load balancer type is "lb99"`},
		{Event{Type: "deprecate_load_balancer_type", LoadBalancerType: "lb11", Announced: at, UnavailableAfter: at.Add(-time.Minute)}, "unavailable_after: "},
		{Event{Type: "deprecate_load_balancer_type", LoadBalancerType: "lb11", UnavailableAfter: clock.Now().Add(-time.Minute)}, "is before announced"},
		{Event{Type: "deprecate_load_balancer_type", LoadBalancerType: "lb11", UnavailableAfter: at, Server: 1}, "server: is not used by deprecate_load_balancer_type"},
		{Event{Type: "delete_server", Server: 1, UnavailableAfter: at}, "unavailable_after: is not used by delete_server"},
	} {
		if err := f.fc.Apply(tt.event); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want one with %q", tt.event, err, tt.want)
		}
	}
	if after, _ := f.fc.Export(); string(after) != string(before) {
		t.Error("a refused event changed the world")
	}
}

// TestLBTypeDeprecationFromYAML: the admin API and a scenario take the
// event with the times as YAML writes them.
func TestLBTypeDeprecationFromYAML(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{Now: clock.Now})
	resp, err := http.Post(f.url+"/_fakecloud/events", "application/yaml",
		strings.NewReader("{type: deprecate_load_balancer_type, load_balancer_type: lb21, announced: 2026-10-01T00:00:00Z, unavailable_after: 2027-01-01T00:00:00Z}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("POST /_fakecloud/events: %d", resp.StatusCode)
	}
	lt, _, err := f.client.LoadBalancerType.GetByName(t.Context(), "lb21")
	if err != nil || lt.Deprecation == nil || lt.Deprecation.Announced.Format(time.DateOnly) != "2026-10-01" || lt.UnavailableAfter().Format(time.DateOnly) != "2027-01-01" {
		t.Fatalf("lb21 after the admin event: %+v, %v", lt, err)
	}
	sc, err := ParseScenario([]byte("steps: [{at: 1m, event: {type: deprecate_load_balancer_type, load_balancer_type: lb31, unavailable_after: 2026-11-01T12:30:00Z}}]"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.fc.LoadScenario(sc); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Minute)
	lt, _, err = f.client.LoadBalancerType.GetByName(t.Context(), "lb31")
	if err != nil || !lt.IsDeprecated() {
		t.Fatalf("lb31 after the scenario's step: %v, not deprecated", err)
	}
	if a := lt.Deprecation.Announced; a.Before(time.Date(2026, 11, 1, 12, 1, 0, 0, time.UTC)) || a.After(clock.Now()) {
		t.Errorf("lb31 announced %s, want when the step ran", a)
	}
}
