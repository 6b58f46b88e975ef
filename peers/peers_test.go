package peers

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
		`not json`,
	}, "\n")
	s := Suite{Prefix: "TestAcc", Unsimulated: map[string]string{"firewall": "firewall"}, UnsimulatedNames: map[string]string{"Firewall": "firewall"},
		Registry: []string{"Failed to query"}}
	tests, err := s.Read(strings.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tt := range tests {
		got = append(got, tt.Name+":"+string(tt.Outcome)+":"+tt.Apart)
	}
	want := "TestAccFirewallResource:fail:firewall is not simulated TestAccNetworkHangs:fail: TestAccNetworkResource:fail: " +
		"TestAccNetworkSkipped:skip: TestAccServerResource:pass: TestAccServerResource_Firewalls:fail:firewall is not simulated TestAccServerUpgrade:fail:needs a provider registry"
	if strings.Join(got, " ") != want {
		t.Errorf("tests\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	line := Summarise(tests).Line("terraform")
	if line != "peers: terraform 1/3 passed (apart: 2 firewall is not simulated; 1 needs a provider registry; 1 skipped by the suite)" {
		t.Errorf("summary %q", line)
	}
	if table := Table(tests); !strings.Contains(table, "| network | 0 | 2 | 0 | `TestAccNetworkHangs`, `TestAccNetworkResource` |") {
		t.Errorf("table:\n%s", table)
	}
}
