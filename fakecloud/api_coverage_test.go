package fakecloud

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestAPICoverageNamesEveryAction: docs/reference/fakecloud/api-coverage.md
// names every action fakecloud serves in its kind's section, and calls no
// served action unsimulated.
func TestAPICoverageNamesEveryAction(t *testing.T) {
	doc, err := os.ReadFile("../docs/reference/fakecloud/api-coverage.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	for _, part := range strings.Split(string(doc), "\n## ")[1:] {
		heading, body, _ := strings.Cut(part, "\n")
		sections[heading] = body
	}
	sectionOf := map[string]string{
		"servers": "Servers", "load_balancers": "Load balancers", "networks": "Networks",
		"floating_ips": "Floating IPs", "firewalls": "Firewalls", "volumes": "Volumes",
		"primary_ips": "Primary IPs", "zones": "DNS zones", "images": "Catalogue", "certificates": "Certificates",
	}
	action := regexp.MustCompile(`^/([a-z_]+)/\{[a-z_]+\}/actions/([a-z_]+)$`)
	served := map[string]bool{}
	for _, r := range apiRoutes() {
		m := action.FindStringSubmatch(r.pattern)
		if r.method != "POST" || m == nil {
			continue
		}
		served[m[2]] = true
		heading, ok := sectionOf[m[1]]
		if !ok {
			t.Errorf("%s: no section of api-coverage.md is known for %s", r.pattern, m[1])
			continue
		}
		if !strings.Contains(sections[heading], "`"+m[2]+"`") {
			t.Errorf("api-coverage.md's section %q does not name the action `%s` (%s)", heading, m[2], r.pattern)
		}
	}
	for _, m := range regexp.MustCompile("not simulate[^.]*?`([a-z_]+)`").FindAllStringSubmatch(string(doc), -1) {
		if served[m[1]] {
			t.Errorf("api-coverage.md calls `%s` not simulated; fakecloud serves it", m[1])
		}
	}
}
