package world

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"unicode/utf8"
)

// apiMultiValued are the query parameters the OpenAPI description types
// as arrays (sort=name&sort=id:desc); every other one is given at most
// once. The admin API has none.
var apiMultiValued = map[string]bool{"sort": true, "status": true, "id": true, "type": true, "bound_to": true}

// strictQuery refuses a query that does not parse (a malformed %-escape
// would otherwise drop its parameter, and with it a filter), that is not
// UTF-8, or that repeats a single-valued parameter, with invalid_input.
// Unknown parameters pass, as the API ignores them.
func strictQuery(multiValued map[string]bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := checkQuery(r.URL.RawQuery, multiValued); err != nil {
				writeError(w, err)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func checkQuery(raw string, multiValued map[string]bool) *apiError {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return invalidField("query", "the query string is malformed: %v", err)
	}
	var f fieldErrors
	for _, name := range slices.Sorted(maps.Keys(q)) {
		values := q[name]
		if !utf8.ValidString(name) {
			return invalidField("query", "a parameter name is not valid UTF-8")
		}
		for _, v := range values {
			if !utf8.ValidString(v) {
				f.add(name, "is not valid UTF-8")
				break
			}
		}
		if len(values) > 1 && !multiValued[name] {
			f.add(name, "is given %d times; it takes one value", len(values))
		}
	}
	return f.err()
}
