package contract

import (
	"bytes"
	"net/url"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRequestsAreCurrent keeps the embedded schemas in step with the
// vendored description and the relaxations.
func TestRequestsAreCurrent(t *testing.T) {
	spec, err := os.ReadFile("../../../testdata/openapi/cloud.spec.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Extract(spec)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, requests) {
		t.Fatal("requests.json is stale: run go generate ./fakecloud/internal/contract")
	}
}

func TestCheck(t *testing.T) {
	server := `"name":"web-1","server_type":"cx23","image":"ubuntu-24.04"`
	cases := []struct {
		name, method, target, body string
		want                       []Problem
	}{
		{"valid server", "POST", "/servers", `{` + server + `}`, nil},
		{"IDs for ID-or-name fields", "POST", "/servers", `{"name":"a","server_type":5,"image":7,"ssh_keys":[1,"key"]}`, nil},
		{"missing required", "POST", "/servers", `{"name":"a","server_type":"cx23"}`, []Problem{{"image", "is required"}}},
		{"null where not nullable", "POST", "/servers", `{` + server + `,"labels":null}`, []Problem{{"labels", "got null, want object"}}},
		{"wrong type in an array", "POST", "/servers", `{` + server + `,"networks":["x"]}`, []Problem{{"networks.0", "got string, want integer"}}},
		{"a body is required", "PUT", "/servers/5", ``, []Problem{{"body", "is required: a JSON object, {} at least"}}},
		{"{} is a body", "PUT", "/servers/5", `{}`, nil},
		{"a body that is not an object is the handler's", "POST", "/servers", `[1]`, nil},
		{"unknown operation", "POST", "/nothing", `{"a":1}`, nil},
		{"required without default", "POST", "/servers/5/actions/change_type", `{"server_type":"cx33"}`, []Problem{{"upgrade_disk", "is required"}}},
		{"service with defaults", "POST", "/load_balancers/5/actions/add_service", `{"protocol":"http"}`, nil},
		{"service without protocol", "POST", "/load_balancers/5/actions/add_service", `{"listen_port":80}`, []Problem{{"protocol", "is required"}}},
		{"cookie lifetime below range", "POST", "/load_balancers/5/actions/add_service", `{"protocol":"http","http":{"cookie_lifetime":29}}`,
			[]Problem{{"http.cookie_lifetime", "must be at least 30, got 29"}}},
		{"https health check", "POST", "/load_balancers/5/actions/add_service", `{"protocol":"https","health_check":{"protocol":"https","port":443,"interval":15,"timeout":10,"retries":3}}`, nil},
		{"the closest service form is reported", "POST", "/load_balancers", `{"name":"lb","load_balancer_type":"lb11","location":"fsn1","services":[{"protocol":"http","http":{"cookie_lifetime":86401}}]}`,
			[]Problem{{"services.0.http.cookie_lifetime", "must be at most 86400, got 86401"}}},
		{"enum in a body", "POST", "/load_balancers", `{"name":"lb","load_balancer_type":"lb11","location":"fsn1","services":[{"protocol":"udp"}]}`,
			[]Problem{{"services.0.protocol", "value must be one of 'tcp', 'http', 'https'"}}},
		{"update names its service", "POST", "/load_balancers/5/actions/update_service", `{"destination_port":8080}`, []Problem{{"listen_port", "is required"}}},
		{"valid query", "GET", "/servers?sort=id:desc&status=running&status=off&page=2", ``, nil},
		{"enum in an array query", "GET", "/servers?sort=size", ``, []Problem{{"sort.0", "value must be one of 'id', 'id:asc', 'id:desc', 'name', 'name:asc', 'name:desc', 'created', 'created:asc', 'created:desc'"}}},
		{"integer query", "GET", "/servers?page=1.5", ``, []Problem{{"page", `"1.5" is not an integer`}}},
		{"boolean query", "GET", "/images?include_deprecated=-1", ``, []Problem{{"include_deprecated", `"-1" is not a boolean: use true or false`}}},
		{"enum query", "GET", "/images?architecture=mips", ``, []Problem{{"architecture", "value must be one of 'x86', 'arm'"}}},
		{"a literal segment is not a parameter", "GET", "/servers/actions?status=lost", ``, []Problem{{"status.0", "value must be one of 'running', 'success', 'error'"}}},
		{"required query", "GET", "/actions", ``, []Problem{{"id", "is required"}}},
	}
	c := Default()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u, err := url.Parse(tc.target)
			if err != nil {
				t.Fatal(err)
			}
			got := c.Check(tc.method, u.Path, u.Query(), []byte(tc.body))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
