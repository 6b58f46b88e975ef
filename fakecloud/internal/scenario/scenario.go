// Package scenario reads scenarios of cloud trouble: timed fault rules,
// action faults, events and rate-limit changes, read strictly from YAML
// or JSON; the server schedules them.
package scenario

import (
	"fmt"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/event"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/faults"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/jsontime"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/realism"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/strict"
)

// Scenario is a script of cloud trouble: timed steps, each a fault rule,
// an action fault, an event or a rate-limit change. Times count from when
// the scenario is loaded.
type Scenario struct {
	Description string `json:"description"`
	// Realism, when set, is in force from when the scenario is loaded.
	Realism *realism.Realism `json:"realism,omitempty"`
	Steps   []Step           `json:"steps"`
}

// Step is one timed step of a scenario; exactly one of its parts is set.
type Step struct {
	At          jsontime.Duration   `json:"at,omitempty"`
	Fault       *faults.Rule        `json:"fault,omitempty"`
	ActionFault *faults.ActionFault `json:"action_fault,omitempty"`
	Event       *event.Event        `json:"event,omitempty"`
	RateLimit   *RateLimitSet       `json:"rate_limit,omitempty"`
}

// RateLimitSet changes the rate limit: the remaining budget and the refill
// rate in requests per second; an omitted field keeps its value.
type RateLimitSet struct {
	Remaining *int     `json:"remaining,omitempty"`
	Refill    *float64 `json:"refill,omitempty"`
}

// ParseScenario reads a scenario from YAML or JSON; unknown fields are refused.
func ParseScenario(data []byte) (Scenario, error) {
	var sc Scenario
	if err := strict.Object(data, &sc); err != nil {
		return Scenario{}, fmt.Errorf("parse scenario: %w", err)
	}
	return sc, nil
}
