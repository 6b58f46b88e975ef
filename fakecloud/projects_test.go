package fakecloud

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

const (
	tokenA = "token-of-project-default"
	tokenB = "token-of-project-b"
	tokenC = "token-of-project-c"
)

// twoProjects is a fakecloud with the default project (tokenA) and
// projects b and c, each client a token of one.
func twoProjects(t *testing.T, opts Options) (*Server, string) {
	t.Helper()
	opts.Tokens = []string{tokenA}
	opts.Projects = map[string][]string{"b": {tokenB}, "c": {tokenC}}
	fc := New(opts)
	return fc, fakecloudtest.Serve(t, fc)
}

// TestProjectsIsolated: clients of two projects create, list and delete
// servers of the same names at the same time, and neither sees the
// other's; their rate limits, faults and counters are their own.
func TestProjectsIsolated(t *testing.T) {
	fc, url := twoProjects(t, Options{RateLimit: 1000})
	clients := map[string]*hcloud.Client{"default": fakecloudtest.Client(url, tokenA), "b": fakecloudtest.Client(url, tokenB)}
	const each = 15
	var wg sync.WaitGroup
	errs := make(chan error, 2*each)
	for name, c := range clients {
		for i := range each {
			wg.Go(func() {
				res, _, err := c.Server.Create(t.Context(), hcloud.ServerCreateOpts{Name: fmt.Sprintf("node-%d", i), Labels: map[string]string{"project": name},
					ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{Name: "ubuntu-24.04"}})
				if err != nil {
					errs <- fmt.Errorf("project %s, node-%d: %w", name, i, err)
					return
				}
				if i%3 != 0 {
					return
				}
				if _, err := c.Server.Delete(t.Context(), res.Server); err != nil {
					errs <- err
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for name, c := range clients {
		all, err := c.Server.All(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range all {
			if s.Labels["project"] != name {
				t.Errorf("project %s sees server %s of project %s", name, s.Name, s.Labels["project"])
			}
		}
		if len(all) != each-each/3 {
			t.Errorf("project %s has %d servers, want %d", name, len(all), each-each/3)
		}
	}
	c := fakecloudtest.Client(url, tokenC)
	if all, err := c.Server.All(t.Context()); err != nil || len(all) != 0 {
		t.Errorf("project c sees %d servers (%v), want none", len(all), err)
	}

	// Rate limits, faults and counters are each project's.
	b, _ := fc.Project("b")
	if err := b.SetRateLimit(0, 0.001); err != nil {
		t.Fatal(err)
	}
	if _, _, err := clients["b"].Server.List(t.Context(), hcloud.ServerListOpts{}); !hcloud.IsError(err, hcloud.ErrorCodeRateLimitExceeded) {
		t.Errorf("project b with an empty bucket: %v, want rate_limit_exceeded", err)
	}
	if _, _, err := clients["default"].Server.List(t.Context(), hcloud.ServerListOpts{}); err != nil {
		t.Errorf("the default project, whose bucket is full: %v", err)
	}
	cc, _ := fc.Project("c")
	if _, err := cc.AddFault(Rule{Path: "/servers", Status: 503}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Server.List(t.Context(), hcloud.ServerListOpts{}); err == nil {
		t.Error("project c's fault did not apply to it")
	}
	if _, _, err := clients["default"].Server.List(t.Context(), hcloud.ServerListOpts{}); err != nil {
		t.Errorf("project c's fault applied to the default project: %v", err)
	}
	if got := b.Requests("POST", "/servers"); got != each {
		t.Errorf("project b counted %d server creates, want its own %d", got, each)
	}
	if got := fc.Requests("POST", "/servers"); got != each {
		t.Errorf("the default project counted %d server creates, want its own %d", got, each)
	}
	if _, _, err := fakecloudtest.Client(url, "no-such-token").Server.List(t.Context(), hcloud.ServerListOpts{}); !hcloud.IsError(err, hcloud.ErrorCodeUnauthorized) {
		t.Errorf("an unknown token: %v, want unauthorized", err)
	}
	// Dedicated servers are the default project's.
	if err := b.Apply(Event{Type: "remove_dedicated_server", ServerNumber: 1}); err == nil || !strings.Contains(err.Error(), "default project") {
		t.Errorf("a dedicated server event in project b: %v, want it refused", err)
	}
}

// TestProjectsAdmin: the admin API names the project it inspects or
// changes, lists the projects, and refuses one there is not.
func TestProjectsAdmin(t *testing.T) {
	fc, _ := twoProjects(t, Options{})
	b, _ := fc.Project("b")
	w, err := ParseWorld([]byte(`servers: [{name: only-in-b}]`))
	if err != nil {
		t.Fatal(err)
	}
	rec := answer(t, fc, "POST", "/_fakecloud/seed?project=b", strings.NewReader(`servers: [{name: only-in-b}]`))
	if rec.Code != http.StatusNoContent {
		t.Fatalf("seed project b: %d %s", rec.Code, rec.Body)
	}
	if got := answer(t, fc, "GET", "/_fakecloud/state?project=b", nil).Body.String(); !strings.Contains(got, "only-in-b") {
		t.Errorf("project b's state has no only-in-b")
	}
	if got := answer(t, fc, "GET", "/_fakecloud/state", nil).Body.String(); strings.Contains(got, "only-in-b") {
		t.Errorf("the default project's state has project b's server")
	}
	if rec := answer(t, fc, "GET", "/_fakecloud/state?project=nope", nil); rec.Code != http.StatusNotFound {
		t.Errorf("an unknown project: %d %s, want 404", rec.Code, rec.Body)
	}
	var listed struct{ Projects []string }
	if err := json.Unmarshal(answer(t, fc, "GET", "/_fakecloud/projects", nil).Body.Bytes(), &listed); err != nil || strings.Join(listed.Projects, ",") != "default,b,c" {
		t.Errorf("GET /_fakecloud/projects: %v %v, want default,b,c", listed.Projects, err)
	}
	if err := b.Seed(w); err != nil {
		t.Fatal(err)
	}
	if got := answer(t, fc, "GET", "/v1/servers", nil, "Authorization", "Bearer "+tokenB).Body.String(); !strings.Contains(got, "only-in-b") {
		t.Errorf("project b's token does not see its seeded server: %s", got)
	}
}

// TestProjectsStateFile: the state file keeps every project, and a file
// naming a project that is not configured is refused whole.
func TestProjectsStateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	fc, _ := twoProjects(t, Options{})
	b, _ := fc.Project("b")
	w, _ := ParseWorld([]byte(`servers: [{name: kept-in-b}]`))
	if err := b.Seed(w); err != nil {
		t.Fatal(err)
	}
	f, _, err := fc.OpenStateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Persist(0)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	back, _ := twoProjects(t, Options{})
	if found, err := back.LoadStateFile(path); !found || err != nil {
		t.Fatalf("load: %v %v", found, err)
	}
	bb, _ := back.Project("b")
	if data, _ := bb.Export(); !strings.Contains(string(data), "kept-in-b") {
		t.Error("project b's server did not come back from the state file")
	}
	if data, _ := back.Export(); strings.Contains(string(data), "kept-in-b") {
		t.Error("project b's server came back in the default project")
	}
	other := New(Options{Projects: map[string][]string{"x": {"tx"}}})
	if _, err := other.LoadStateFile(path); err == nil || !strings.Contains(err.Error(), "projects.b") {
		t.Errorf("a state file naming project b, into a fakecloud without it: %v, want an error naming projects.b", err)
	}
}

// TestProjectOptionsChecked: a token of two projects, a project without
// a token or with a bad name are refused, naming each.
func TestProjectOptionsChecked(t *testing.T) {
	err := Options{Tokens: []string{"t"}, Projects: map[string][]string{"a": {"t"}, "default": {"u"}, "b c": {"v"}, "e": nil}}.Check()
	for _, want := range []string{`project "a": a token of it is project "default"'s too`, `project "default"`, `project "b c"`, `project "e": has no token`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check: %v, want %s", err, want)
		}
	}
}

// TestOwnPaths: the paths that stay the default project's whatever the
// token, and the API's, which go to the token's project.
func TestOwnPaths(t *testing.T) {
	for path, own := range map[string]bool{
		"/_fakecloud/state": true, "/metadata/hostname": true, "/hetzner/v1/metadata": true, "/hetzner/v1/metadata/hostname": true,
		"/robot/server": true, "/metrics": true, "/v1/servers": false, "/servers": false, "/metricsx": false, "/v1/metrics": false,
	} {
		if got := ownPath(path); got != own {
			t.Errorf("ownPath(%s) = %v, want %v", path, got, own)
		}
	}
}
