package main

import (
	"strings"
	"testing"
)

// TestRead: top-level acceptance tests only, their subtests folded in,
// sorted apart by package or by a registry in their output.
func TestRead(t *testing.T) {
	stream := strings.Join([]string{
		`{"Action":"run","Package":"p/internal/server","Test":"TestAccServerResource"}`,
		`{"Action":"output","Package":"p/internal/server","Test":"TestAccServerResource/step","Output":"ok\n"}`,
		`{"Action":"fail","Package":"p/internal/server","Test":"TestAccServerResource/step"}`,
		`{"Action":"pass","Package":"p/internal/server","Test":"TestAccServerResource"}`,
		`{"Action":"fail","Package":"p/internal/server","Test":"TestAccServerUpgrade"}`,
		`{"Action":"output","Package":"p/internal/server","Test":"TestAccServerUpgrade","Output":"Failed to query available provider packages\n"}`,
		`{"Action":"fail","Package":"p/internal/network","Test":"TestAccNetworkResource"}`,
		`{"Action":"run","Package":"p/internal/network","Test":"TestAccNetworkHangs"}`,
		`{"Action":"fail","Package":"p/internal/firewall","Test":"TestAccFirewallResource"}`,
		`{"Action":"skip","Package":"p/internal/network","Test":"TestAccNetworkSkipped"}`,
		`{"Action":"fail","Package":"p/internal/server","Test":"TestAccServerResource_Firewalls"}`,
		`{"Action":"pass","Package":"p/internal/network","Test":"TestUnit"}`,
		`{"Action":"output","Package":"p/internal/primaryip","Test":"TestAccPrimaryIPResource","Output":"unexpected new value: .assignee_type: was \"server\"\n"}`,
		`{"Action":"fail","Package":"p/internal/primaryip","Test":"TestAccPrimaryIPResource"}`,
		`{"Action":"output","Package":"p/internal/primaryip","Test":"TestAccPrimaryIPData","Output":"Error: registry.terraform.io/hetznercloud/hcloud produced an invalid plan\n"}`,
		`{"Action":"fail","Package":"p/internal/primaryip","Test":"TestAccPrimaryIPData"}`,
		`not json`,
	}, "\n")
	s := Suite{Prefix: "TestAcc", Unsimulated: map[string]string{"firewall": "firewall"}, UnsimulatedNames: map[string]string{"Firewall": "firewall"},
		Registry: []string{"Failed to query"}, Known: []Known{{`assignee_type: was "server"`, "asserts the old API"}}}
	tests, err := s.Read(strings.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tt := range tests {
		got = append(got, tt.Name+":"+string(tt.Outcome)+":"+tt.Apart)
	}
	want := "TestAccFirewallResource:fail:firewall is not simulated TestAccNetworkHangs:fail: TestAccNetworkResource:fail: " +
		"TestAccNetworkSkipped:skip: TestAccPrimaryIPData:fail: TestAccPrimaryIPResource:fail:asserts the old API " +
		"TestAccServerResource:pass: TestAccServerResource_Firewalls:fail:firewall is not simulated TestAccServerUpgrade:fail:needs a provider registry"
	if strings.Join(got, " ") != want {
		t.Errorf("tests\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	line := Summarise(tests).Line("terraform")
	if line != "peers: terraform 1/4 passed (apart: 1 asserts the old API; 2 firewall is not simulated; 1 needs a provider registry; 1 skipped by the suite)" {
		t.Errorf("summary %q", line)
	}
	if table := Table(tests); !strings.Contains(table, "| network | 0 | 2 | 0 | `TestAccNetworkHangs`, `TestAccNetworkResource` |") ||
		!strings.Contains(table, "- `TestAccPrimaryIPResource` (primaryip): asserts the old API\n") || strings.Contains(table, "TestAccFirewallResource`") {
		t.Errorf("table:\n%s", table)
	}
}

// TestNotRun: a test left out of the run is listed apart when its package
// ran, and not when its package was not asked for.
func TestNotRun(t *testing.T) {
	stream := `{"Action":"pass","Package":"p/internal/server","Test":"TestAccServerResource"}`
	s := Suite{Prefix: "TestAcc", NotRun: map[string]string{"server TestAccBastion": "needs SSH", "volume TestAccVolume": "not here"}}
	tests, err := s.Read(strings.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tt := range tests {
		got = append(got, tt.Package+" "+tt.Name+":"+string(tt.Outcome)+":"+tt.Apart)
	}
	if want := "p/internal/server TestAccBastion:skip:not run: needs SSH p/internal/server TestAccServerResource:pass:"; strings.Join(got, " ") != want {
		t.Errorf("tests %q, want %q", strings.Join(got, " "), want)
	}
}
