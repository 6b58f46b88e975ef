package ccm

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hcloudlab/hcloud-ccm/ccm/nearname"
)

// The official CCM's variables that this one does not read, and what to
// use instead: an operator who swaps CCMs is told which settings stopped
// working.
var notHonoured = map[string]string{
	"HCLOUD_SERVER_CACHE_MODE":    "the server inventory is always on; HCLOUD_INVENTORY_MAX_AGE (default 5m) and HCLOUD_INVENTORY_LIFECYCLE_MAX_AGE (default 1m) set how old a server may be",
	"HCLOUD_SERVER_CACHE_MAX_AGE": "use HCLOUD_INVENTORY_MAX_AGE (default 5m) for node metadata and routes, HCLOUD_INVENTORY_LIFECYCLE_MAX_AGE (default 1m) for deleted and stopped servers",
}

// knownNames are the variables LoadConfig reads, asked of it once.
var knownNames = sync.OnceValue(func() map[string]bool {
	names := map[string]bool{}
	_, _ = LoadConfig(func(name string) string { names[name] = true; return "" }, nil)
	return names
})

// CheckEnviron looks at every HCLOUD_* and ROBOT_* variable that is set
// (environ as os.Environ gives it) and warns of each one this CCM does not
// read: the official CCM's with what to use instead, others with the
// closest known name.
func CheckEnviron(environ []string) (warnings []string, err error) {
	known := knownNames()
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if strings.TrimSpace(value) == "" || known[name] {
			continue
		}
		switch {
		case notHonoured[name] != "":
			warnings = append(warnings, fmt.Sprintf("%s is set but not honoured: %s", name, notHonoured[name]))
		case strings.HasPrefix(name, "HCLOUD_") || strings.HasPrefix(name, "ROBOT_"):
			warnings = append(warnings, fmt.Sprintf("%s is set but not a setting of this CCM%s", name, closest(name, known)))
		}
	}
	slices.Sort(warnings)
	return warnings, err
}

// closest suggests the known name nearest to name, if one is near.
func closest(name string, known map[string]bool) string {
	best, bestDist := "", len(name)/3+1
	for k := range known {
		if d := nearname.Distance(name, k); d < bestDist || (d == bestDist && k < best) {
			best, bestDist = k, d
		}
	}
	if best == "" {
		return ""
	}
	return "; did you mean " + best + "?"
}
