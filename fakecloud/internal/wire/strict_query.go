package wire

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"unicode/utf8"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// APIMultiValued are the query parameters the OpenAPI description types
// as arrays (sort=name&sort=id:desc); every other one is given at most
// once. The admin API has none.
var APIMultiValued = map[string]bool{"sort": true, "status": true, "id": true, "type": true, "bound_to": true}

// StrictQuery refuses a query that does not parse (a malformed %-escape
// would otherwise drop its parameter, and with it a filter), that is not
// UTF-8, or that repeats a single-valued parameter, with invalid_input.
// Unknown parameters pass, as the API ignores them.
func StrictQuery(multiValued map[string]bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := CheckQuery(r.URL.RawQuery, multiValued); err != nil {
				WriteError(w, err)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func CheckQuery(raw string, multiValued map[string]bool) *apierr.Error {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return apierr.InvalidField("query", "the query string is malformed: %v", err)
	}
	var f apierr.Fields
	for _, name := range slices.Sorted(maps.Keys(q)) {
		values := q[name]
		if !utf8.ValidString(name) {
			return apierr.InvalidField("query", "a parameter name is not valid UTF-8")
		}
		for _, v := range values {
			if !utf8.ValidString(v) {
				f.Add(name, "is not valid UTF-8")
				break
			}
		}
		if len(values) > 1 && !multiValued[name] {
			f.Add(name, "is given %d times; it takes one value", len(values))
		}
	}
	return f.Err()
}
