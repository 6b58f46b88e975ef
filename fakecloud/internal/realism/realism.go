// Package realism says how fakecloud reads what the API's documentation
// leaves open: optimistic, as clients were built, or pessimistic.
package realism

import (
	"fmt"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/jsontime"
)

// Realism says how fakecloud reads what the API's documentation leaves
// open. The default, optimistic, is the reading clients were built on:
// small IDs in creation order, actions kept for ever, an action for every
// change. Pessimistic takes the unhelpful reading of each, so a client
// that relies on one of them fails its tests here rather than in
// production.
type Realism struct {
	// Mode is optimistic (the default) or pessimistic.
	Mode string `json:"mode"`
	// ActionRetention, under pessimistic realism, is how long a finished
	// action stays in listings (default 30m); GET /actions/{id} still
	// answers for it.
	ActionRetention jsontime.Duration `json:"action_retention,omitempty"`
}

// The realism modes.
const (
	RealismOptimistic  = "optimistic"
	RealismPessimistic = "pessimistic"
)

// DefaultActionRetention is how long finished actions stay listed under
// pessimistic realism unless ActionRetention says otherwise.
const DefaultActionRetention = 30 * time.Minute

// Check validates a realism and fills in its defaults.
func (r Realism) Check() (Realism, error) {
	switch r.Mode {
	case "":
		r.Mode = RealismOptimistic
	case RealismOptimistic, RealismPessimistic:
	default:
		return r, fmt.Errorf("mode: %q is not one of %s, %s", r.Mode, RealismOptimistic, RealismPessimistic)
	}
	if r.ActionRetention < 0 {
		return r, fmt.Errorf("action_retention: must not be negative")
	}
	if r.Mode == RealismPessimistic && r.ActionRetention == 0 {
		r.ActionRetention = jsontime.Duration(DefaultActionRetention)
	}
	if r.Mode == RealismOptimistic {
		r.ActionRetention = 0
	}
	return r, nil
}
