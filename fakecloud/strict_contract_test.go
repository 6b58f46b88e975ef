package fakecloud

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// TestContract: a request that breaks the OpenAPI description is refused
// with invalid_input naming each field, before any handler runs, and
// changes nothing; what the description allows passes on to the handler.
func TestContract(t *testing.T) {
	fc, ids := seededServer(t)
	server := fmt.Sprintf("/v1/servers/%d", ids["server"])
	lb := accept(t, fc, "POST", "/v1/load_balancers", `{"name":"lb","load_balancer_type":"lb11","location":"fsn1"}`)
	var created struct {
		LoadBalancer struct{ ID int64 } `json:"load_balancer"`
	}
	if err := json.Unmarshal(lb, &created); err != nil {
		t.Fatal(err)
	}
	addService := fmt.Sprintf("/v1/load_balancers/%d/actions/add_service", created.LoadBalancer.ID)
	cases := []struct{ method, path, body, field string }{
		{"POST", addService, `{"protocol":"http","http":{"cookie_lifetime":29}}`, "http.cookie_lifetime"},
		{"POST", addService, `{"protocol":"http","http":{"cookie_name":""}}`, "http.cookie_name"},
		{"POST", addService, `{"protocol":"http","http":{"cookie_name":"` + strings.Repeat("c", 101) + `"}}`, "http.cookie_name"},
		{"POST", addService, `{"protocol":"quic"}`, "protocol"},
		{"POST", server + "/actions/change_type", `{"server_type":"cx33"}`, "upgrade_disk"},
		{"PUT", server, `{"name":null}`, "name"},
		{"GET", "/v1/servers?sort=size", ``, "sort.0"},
		{"GET", "/v1/images?type=1.5", ``, "type.0"},
		{"GET", "/v1/images?include_deprecated=-1", ``, "include_deprecated"},
		{"GET", "/v1/certificates?type=selfmade", ``, "type.0"},
	}
	for _, tc := range cases {
		before := export(t, fc)
		rec := answer(t, fc, tc.method, tc.path, strings.NewReader(tc.body))
		var env struct {
			Error struct {
				Code    string
				Details apierr.InvalidInputDetails
			}
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &env)
		if rec.Code != http.StatusUnprocessableEntity || env.Error.Code != apierr.CodeInvalidInput ||
			len(env.Error.Details.Fields) != 1 || env.Error.Details.Fields[0].Name != tc.field {
			t.Errorf("%s %s %.80s: %d %s, want invalid_input in field %s", tc.method, tc.path, tc.body, rec.Code, rec.Body, tc.field)
		}
		if diff := cmp.Diff(before, export(t, fc)); diff != "" {
			t.Errorf("%s %s was refused but changed the world:\n%s", tc.method, tc.path, diff)
		}
	}
	accept(t, fc, "POST", addService, `{"protocol":"http","http":{"cookie_lifetime":30,"cookie_name":"c"}}`)
	accept(t, fc, "GET", "/v1/images?type=system&include_deprecated=true&architecture=arm", ``)
}
