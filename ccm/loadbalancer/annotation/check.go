package annotation

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// CheckDefaults refuses HCLOUD_LOAD_BALANCERS_* values that the
// annotations they stand for would refuse, naming the variable and what
// it accepts, so a bad default stops the CCM at start instead of failing
// every Service's sync.
func CheckDefaults(d Defaults) error {
	var errs []error
	bad := func(name Key, v any) {
		s := specs[name]
		errs = append(errs, fmt.Errorf("%s=%v: want %s, as annotation %s", s.env, v, s.accepted(), name))
	}
	for name, v := range map[Key]time.Duration{HealthCheckInterval: d.HealthCheckInterval, HealthCheckTimeout: d.HealthCheckTimeout} {
		if s := specs[name]; v != 0 && (v%time.Second != 0 || v < s.min || v > s.max) {
			bad(name, v)
		}
	}
	if s := specs[HealthCheckRetries]; d.HealthCheckRetries != nil && (*d.HealthCheckRetries < s.lo || *d.HealthCheckRetries > s.hi) {
		bad(HealthCheckRetries, *d.HealthCheckRetries)
	}
	if f := d.TargetAddressFamily; f != "" && !slices.Contains(specs[TargetAddressFamily].choices, f) {
		bad(TargetAddressFamily, f)
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}
