package parity

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"sync"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// kept is a fresh fakecloud target that outlives the runs of a test, so
// the test can look at what they left.
func kept(t *testing.T) *Target {
	t.Helper()
	target, _ := Fakecloud()
	t.Cleanup(target.Close)
	target.Close = func() {}
	return target
}

// leftovers names what the world still holds of the kit: everything
// labelled KitSelector, and every primary IP (the world is fresh, so any
// came with a server of the kit).
func leftovers(t *testing.T, target *Target) []string {
	t.Helper()
	ctx := t.Context()
	c := target.client(nil)
	list := hcloud.ListOpts{LabelSelector: KitSelector}
	var out []string
	servers, err := c.Server.AllWithOpts(ctx, hcloud.ServerListOpts{ListOpts: list})
	for _, s := range servers {
		out = append(out, "server "+s.Name)
	}
	lbs, err2 := c.LoadBalancer.AllWithOpts(ctx, hcloud.LoadBalancerListOpts{ListOpts: list})
	for _, lb := range lbs {
		out = append(out, "load balancer "+lb.Name)
	}
	networks, err3 := c.Network.AllWithOpts(ctx, hcloud.NetworkListOpts{ListOpts: list})
	for _, n := range networks {
		out = append(out, "network "+n.Name)
	}
	ips, err4 := c.PrimaryIP.All(ctx)
	for _, p := range ips {
		out = append(out, "primary IP "+p.Name)
	}
	certs, err5 := c.Certificate.AllWithOpts(ctx, hcloud.CertificateListOpts{ListOpts: list})
	for _, cert := range certs {
		out = append(out, "certificate "+cert.Name)
	}
	if err := errors.Join(err, err2, err3, err4, err5); err != nil {
		t.Fatalf("list what is left: %v", err)
	}
	return out
}

// cancelAfter cancels the run once the nth POST has been answered.
type cancelAfter struct {
	n      int
	cancel context.CancelFunc
	mu     sync.Mutex
	posts  int
}

func (c *cancelAfter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if req.Method == http.MethodPost {
		c.mu.Lock()
		c.posts++
		if c.posts == c.n {
			c.cancel()
		}
		c.mu.Unlock()
	}
	return resp, err
}

// TestCleanupOnCancel cancels a scenario mid-way, as an interrupt does,
// and finds nothing of the kit left.
func TestCleanupOnCancel(t *testing.T) {
	tests := []struct {
		name, scenario string
		afterPOST      int
		wantRemoved    []string // what the cleanup must have found
	}{
		{"a server just created", "server-life", 2, []string{"server parity-rcut-life", "network parity-rcut-life"}},
		{"its primary IPv4 unassigned", "server-life", 9, []string{"server parity-rcut-life-renamed", "network parity-rcut-life", "primary IP primary_ip-"}},
		{"a load balancer just created", "load-balancer-life", 2, []string{"load balancer parity-rcut-lb", "server parity-rcut-lb-target"}},
		{"a network with a route", "routes", 2, []string{"network parity-rcut-routes"}},
		{"a server still being created", "mistakes", 4, []string{"server parity-rcut-locked"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := kept(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			target.Transport = &cancelAfter{n: tt.afterPOST, cancel: cancel}
			results := Run(ctx, Config{Open: func() (*Target, error) { return target, nil },
				Location: "fsn1", Match: regexp.MustCompile("^" + tt.scenario + "$"), Dir: snapshotDir, RunID: "rcut"})
			if len(results) != 1 {
				t.Fatalf("%d results, want 1", len(results))
			}
			r := results[0]
			if !errors.Is(r.Err, context.Canceled) {
				t.Errorf("the run ended with %v, want context.Canceled", r.Err)
			}
			for _, want := range tt.wantRemoved {
				if !slices.ContainsFunc(r.Removed, func(got string) bool { return len(got) >= len(want) && got[:len(want)] == want }) {
					t.Errorf("the cleanup did not remove %s; it removed %q", want, r.Removed)
				}
			}
			if left := leftovers(t, target); len(left) > 0 {
				t.Errorf("left after the cleanup: %q", left)
			}
		})
	}
}

// labelCheck reads every request that creates a resource and notes
// those whose labels are not the kit's and the run's.
type labelCheck struct {
	run     string
	mu      sync.Mutex
	creates int
	bad     []string
}

var createPath = regexp.MustCompile(`^/v1/(servers|networks|load_balancers|primary_ips|certificates|ssh_keys|firewalls|volumes|floating_ips|placement_groups)$`)

func (l *labelCheck) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && createPath.MatchString(req.URL.Path) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		var v struct {
			Labels map[string]string `json:"labels"`
		}
		_ = json.Unmarshal(body, &v)
		l.mu.Lock()
		l.creates++
		if v.Labels[KitLabel] != "1" || v.Labels[RunLabel] != l.run {
			l.bad = append(l.bad, fmt.Sprintf("POST %s with labels %v", req.URL.Path, v.Labels))
		}
		l.mu.Unlock()
	}
	return http.DefaultTransport.RoundTrip(req)
}

// TestEverythingCreatedIsLabelled runs every scenario and reads every
// create request: each carries the kit's label and the run's.
func TestEverythingCreatedIsLabelled(t *testing.T) {
	for _, name := range ScenarioNames(nil) {
		t.Run(name, func(t *testing.T) {
			check := &labelCheck{run: "rlabels"}
			results := Run(t.Context(), Config{
				Open: func() (*Target, error) {
					target, err := OpenFakecloud()
					target.Transport = check
					return target, err
				},
				Location: "fsn1", Match: regexp.MustCompile("^" + name + "$"), Dir: snapshotDir, RunID: check.run,
			})
			if len(results) != 1 || !results[0].OK() {
				t.Fatalf("the scenario failed: %+v", results)
			}
			if check.creates == 0 {
				t.Fatal("the scenario created nothing")
			}
			if len(check.bad) > 0 {
				t.Errorf("created without the kit's and the run's labels:\n%q", check.bad)
			}
		})
	}
}
