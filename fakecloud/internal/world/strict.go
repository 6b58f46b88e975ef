package world

import "github.com/hcloudlab/hcloud-ccm/fakecloud/internal/strict"

// Strict reading lives in internal/strict; these names keep the
// handlers' spelling.
var (
	parseID = strict.ParseID
)

// checkUnique refuses an item listed twice in one request (a network to
// attach, a certificate to serve): the API names the field. A client that
// repeats one would otherwise pass here and fail in production.
func checkUnique[T comparable](f *fieldErrors, field string, items []T) {
	seen := make(map[T]bool, len(items))
	for _, it := range items {
		if seen[it] {
			f.add(field, "%v is given more than once", it)
			return
		}
		seen[it] = true
	}
}
