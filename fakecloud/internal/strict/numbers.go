// Package strict reads requests as strictly as the API does: plain
// decimal IDs, JSON that is UTF-8 with no lone surrogate, keys matched
// exactly, admin bodies that are one YAML or JSON object with no unknown
// field. It knows nothing of the world.
package strict

import (
	"strconv"
)

// MaxID is the largest ID: the OpenAPI description gives every ID
// "maximum": 9007199254740991 (2^53-1, exact in a float64).
const MaxID = 1<<53 - 1

// ParseDecimal reads a plain decimal number: ASCII digits only, no sign,
// no leading zero, no spaces, at most max. "+5", "007", "1e3", "0x10" and
// "５" are not numbers here, whatever strconv would make of them.
func ParseDecimal(s string, max uint64) (uint64, bool) {
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

// ParseID reads a resource ID: a plain decimal from 1 to MaxID.
func ParseID(s string) (int64, bool) {
	n, ok := ParseDecimal(s, MaxID)
	if !ok || n == 0 {
		return 0, false
	}
	return int64(n), true
}
