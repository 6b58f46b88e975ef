package fakecloud

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/contract"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/strict"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
)

// checkContract refuses, with invalid_input naming each field, a request
// whose query or JSON body breaks the OpenAPI description: a missing
// required property, a value of the wrong type or null where none is
// allowed, a number out of range, a string outside its enum, a property
// the schema does not know. Bodies that are not JSON objects, or not
// UTF-8, pass on to the handlers, which answer json_error. The handlers
// still judge what the description cannot, such as whether a server
// exists.
func checkContract(c *contract.Contract) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var body []byte
			if r.Body != nil && r.Body != http.NoBody {
				body, _ = io.ReadAll(r.Body) // wire.LimitBody has read it into memory
				r.Body = io.NopCloser(bytes.NewReader(body))
			}
			if strict.CheckJSONText(body) == nil {
				path := strings.TrimPrefix(r.URL.Path, "/v1")
				if err := breaches(c, r.Method, path, r.URL.Query(), body); err != nil {
					wire.WriteError(w, err)
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// breaches is invalid_input naming each field where a request breaks the
// description, nil where it keeps to it.
func breaches(c *contract.Contract, method, path string, query url.Values, body []byte) *apierr.Error {
	var f apierr.Fields
	for _, p := range c.Check(method, path, query, body) {
		f.Add(p.Field, "%s", p.Message)
	}
	return f.Err()
}
