package admin

import (
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/hcloudlab/hcloud-ccm/internal/refdoc"
)

// TestReferenceAdminRoutes: docs/reference/fakecloud/admin-api.md lists
// every admin route, each once, and no route the router lacks.
func TestReferenceAdminRoutes(t *testing.T) {
	routes := map[string]bool{}
	err := chi.Walk(Routes(nil, nil, "", nil).(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		routes[method+" "+strings.TrimSuffix(route, "/")] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, d := range adminRouteDocs {
		if !routes[d.route] {
			t.Errorf("%s is documented but not served", d.route)
		}
		delete(routes, d.route)
		method, path, _ := strings.Cut(d.route, " ")
		rows = append(rows, []string{refdoc.Code(method), refdoc.Code("/_fakecloud" + path), d.does})
	}
	for r := range routes {
		t.Errorf("%s is served but not documented in docs.go", r)
	}
	refdoc.Check(t, "docs/reference/fakecloud/admin-api.md", "admin-routes", refdoc.Table([]string{"method", "path", "does"}, rows))
}
