package fakecloud

import (
	"strconv"
)

// maxID is the largest ID: the OpenAPI description gives every ID
// "maximum": 9007199254740991 (2^53-1, exact in a float64).
const maxID = 1<<53 - 1

// parseDecimal reads a plain decimal number: ASCII digits only, no sign,
// no leading zero, no spaces, at most max. "+5", "007", "1e3", "0x10" and
// "５" are not numbers here, whatever strconv would make of them.
func parseDecimal(s string, max uint64) (uint64, bool) {
	if s == "" || len(s) > 20 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n > max {
		return 0, false
	}
	return n, true
}

// parseID reads a resource ID: a plain decimal from 1 to maxID.
func parseID(s string) (int64, bool) {
	n, ok := parseDecimal(s, maxID)
	if !ok || n == 0 {
		return 0, false
	}
	return int64(n), true
}

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
