package adminclient_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/adminclient"
)

// TestProjectClient: a client of one project seeds and exports that
// project only; an unknown project is an error.
func TestProjectClient(t *testing.T) {
	_, c := start(t, fakecloud.Options{Projects: map[string][]string{"ci-2": {"t2"}}})
	ctx := t.Context()
	if names, err := c.Projects(ctx); err != nil || strings.Join(names, ",") != "default,ci-2" {
		t.Errorf("projects: %v %v", names, err)
	}
	if err := c.Project("ci-2").SeedDoc(ctx, []byte(`servers: [{name: only-in-ci-2}]`)); err != nil {
		t.Fatal(err)
	}
	if data, err := c.Project("ci-2").Export(ctx); err != nil || !strings.Contains(string(data), "only-in-ci-2") {
		t.Errorf("project ci-2's export: %v, without its server", err)
	}
	if data, err := c.Export(ctx); err != nil || strings.Contains(string(data), "only-in-ci-2") {
		t.Errorf("the default project's export: %v, with project ci-2's server", err)
	}
	var e *adminclient.Error
	if _, err := c.Project("nope").Export(ctx); !errors.As(err, &e) || e.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown project: %v, want a 404", err)
	}
}
