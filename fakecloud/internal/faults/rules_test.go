package faults

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/jsontime"
)

// serverErrorOnly knows one error code, server_error.
func serverErrorOnly(_, code string) (int, bool) { return 500, code == "server_error" }

func TestRuleValidation(t *testing.T) {
	fs := New(0, time.Now, serverErrorOnly)
	tests := []struct {
		rule  Rule
		field string
	}{
		{Rule{Path: "servers", Status: 500}, "path"},
		{Rule{Path: "/**/actions/poweron", Status: 500}, "path"},
		{Rule{Path: "/servers/**/poweron", Status: 500}, "path"},
		{Rule{Path: "/servers/12*", Status: 500}, "path"},
		{Rule{Path: "/servers"}, "status"},
		{Rule{Path: "/servers", Status: 200}, "status"},
		{Rule{Path: "/servers", Status: 500, Hang: true}, "status"},
		{Rule{Path: "/servers", Method: "FETCH", Status: 500}, "method"},
		{Rule{Path: "/servers", Status: 500, Probability: 2}, "probability"},
		{Rule{Path: "/servers", Latency: jsontime.Duration(time.Second), AfterCommit: true}, "after_commit"},
		{Rule{Method: "GET", Path: "/servers", Status: 504, AfterCommit: true}, "after_commit"}, // a GET commits nothing
		{Rule{Path: "/servers", Status: 500, Count: -1}, "count"},
		{Rule{Path: "/servers", Status: 500, Skip: -1}, "skip"},
		{Rule{Path: "/servers", Code: "made_up"}, "code"},
		{Rule{Path: "/servers", Status: 503, Latency: -1}, "latency"},
	}
	for _, tt := range tests {
		_, err := fs.Add(tt.rule)
		if err == nil || !strings.Contains(err.Error(), tt.field+":") {
			t.Errorf("%+v: got %v, want an error naming %s", tt.rule, err, tt.field)
		}
	}
	if rules, _ := fs.List(); len(rules) != 0 {
		t.Errorf("refused rules were added: %+v", rules)
	}
}

func TestActionFaultValidation(t *testing.T) {
	fs := New(0, time.Now, serverErrorOnly)
	tests := []struct {
		fault ActionFault
		field string
	}{
		{ActionFault{ErrorCode: "server_error"}, "command"},
		{ActionFault{Command: "*"}, "error_code"},
		{ActionFault{Command: "*", ErrorCode: "oops"}, "error_code"},
		{ActionFault{Command: "*", ErrorCode: "server_error", Count: -1}, "count"},
		{ActionFault{Command: "*", ErrorCode: "server_error", Skip: -1}, "skip"},
		{ActionFault{Command: "*", Delay: -1}, "delay"},
	}
	for _, tt := range tests {
		_, err := fs.AddAction(tt.fault)
		if err == nil || !strings.Contains(err.Error(), tt.field) {
			t.Errorf("%+v: got %v, want an error naming %s", tt.fault, err, tt.field)
		}
	}
	if _, actions := fs.List(); len(actions) != 0 {
		t.Errorf("refused action faults were added: %+v", actions)
	}
}

func TestPathMatches(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"/servers", "/servers", true},
		{"/servers", "/servers/1", false},
		{"/servers/{id}", "/servers/1", true},
		{"/servers/*/actions/poweron", "/servers/1/actions/poweron", true},
		{"/servers/*/actions/poweron", "/servers/1/actions/poweroff", false},
		{"/load_balancers/**", "/load_balancers", true},
		{"/load_balancers/**", "/load_balancers/7/actions/add_target", true},
		{"/**", "/anything/at/all", true},
		{"/servers/{id}", "/servers", false},
	}
	for _, tt := range tests {
		if got := pathMatches(tt.pattern, tt.path); got != tt.want {
			t.Errorf("pathMatches(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

// TestSkipThenCount: skip lets matching requests and actions through
// before count applies, so a rule can fail exactly the third request of a
// route; requests the rule does not match do not use up the skip.
func TestSkipThenCount(t *testing.T) {
	fs := New(0, time.Now, serverErrorOnly)
	r, err := fs.Add(Rule{Method: "POST", Path: "/servers/{id}/actions/poweron", Status: 500, Skip: 2, Count: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got []bool
	for _, req := range []struct{ method, path string }{
		{"POST", "/servers/1/actions/poweron"}, {"GET", "/servers/1/actions/poweron"}, {"POST", "/servers/1/actions/poweroff"},
		{"POST", "/servers/2/actions/poweron"}, {"POST", "/servers/3/actions/poweron"}, {"POST", "/servers/4/actions/poweron"},
	} {
		_, hit := fs.match(req.method, req.path, "", nil)
		got = append(got, hit)
	}
	if want := []bool{false, false, false, false, true, false}; !slices.Equal(got, want) {
		t.Errorf("applied %v, want %v", got, want)
	}
	if rules, _ := fs.List(); rules[0].ID != r.ID || rules[0].Hits != 1 || rules[0].Skipped != 2 {
		t.Errorf("rule state %+v, want 1 hit and 2 skipped", rules[0])
	}

	if _, err := fs.AddAction(ActionFault{Command: "add_target", ErrorCode: "server_error", Skip: 1, Count: 1}); err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, cmd := range []string{"add_target", "add_service", "add_target", "add_target"} {
		code, _, _ := fs.ForAction(cmd)
		codes = append(codes, code)
	}
	if want := []string{"", "", "server_error", ""}; !slices.Equal(codes, want) {
		t.Errorf("action codes %q, want %q", codes, want)
	}
}

// TestUserAgentScopesARule: a rule with user_agent applies only to the
// requests of that client, and others do not use up its skip.
func TestUserAgentScopesARule(t *testing.T) {
	fs := New(0, time.Now, serverErrorOnly)
	if _, err := fs.Add(Rule{Path: "/servers", Status: 500, UserAgent: "hcloud-ccm/", Skip: 1}); err != nil {
		t.Fatal(err)
	}
	var got []bool
	for _, ua := range []string{"hcloud-ccm/v1 hcloud-go/2.52.0", "hcloud-go/2.52.0", "hcloud-go/2.52.0", "hcloud-ccm/v1 hcloud-go/2.52.0"} {
		_, hit := fs.match("GET", "/servers", ua, nil)
		got = append(got, hit)
	}
	if want := []bool{false, false, false, true}; !slices.Equal(got, want) {
		t.Errorf("applied %v, want %v", got, want)
	}
}
