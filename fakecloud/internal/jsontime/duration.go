// Package jsontime writes time spans as text ("15s", "2m") in JSON, as
// fault rules, events, scenarios and the journal show them.
package jsontime

import (
	"encoding/json"
	"fmt"
	"time"
)

// Duration is a time.Duration written as text ("15s", "2m") in JSON and
// YAML, as rules and scenarios use it.
type Duration time.Duration

// MarshalJSON writes the duration as text.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads "15s"-style text; a bare number is refused so that a
// missing unit is never guessed.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a duration such as \"15s\", got %s", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration such as \"15s\", got %q", s)
	}
	if v < 0 {
		return fmt.Errorf("duration %q is negative", s)
	}
	*d = Duration(v)
	return nil
}
