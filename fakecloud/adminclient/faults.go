package adminclient

import (
	"context"
	"net/http"
	"strconv"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// Faults are the request fault rules and action faults, with their hits.
// The fields are in the order fakecloud writes them.
type Faults struct {
	ActionFaults []fakecloud.ActionFault `json:"action_faults"`
	Rules        []fakecloud.Rule        `json:"rules"`
}

// Faults lists the fault rules and action faults.
func (c *Client) Faults(ctx context.Context) (Faults, error) {
	var f Faults
	err := c.do(ctx, http.MethodGet, "/faults", nil, &f)
	return f, err
}

// AddFault adds a request fault rule and returns it with its ID.
func (c *Client) AddFault(ctx context.Context, r fakecloud.Rule) (fakecloud.Rule, error) {
	return keyed[fakecloud.Rule](ctx, c, http.MethodPost, "/faults", "rule", r)
}

// AddFaultDoc is AddFault with the rule as YAML or JSON, sent as written
// for fakecloud to decode strictly.
func (c *Client) AddFaultDoc(ctx context.Context, doc []byte) (fakecloud.Rule, error) {
	return keyed[fakecloud.Rule](ctx, c, http.MethodPost, "/faults", "rule", doc)
}

// AddActionFault makes actions of a command fail or run longer, and
// returns the action fault with its ID.
func (c *Client) AddActionFault(ctx context.Context, af fakecloud.ActionFault) (fakecloud.ActionFault, error) {
	return keyed[fakecloud.ActionFault](ctx, c, http.MethodPost, "/action-faults", "action_fault", af)
}

// AddActionFaultDoc is AddActionFault with the fault as YAML or JSON, sent
// as written.
func (c *Client) AddActionFaultDoc(ctx context.Context, doc []byte) (fakecloud.ActionFault, error) {
	return keyed[fakecloud.ActionFault](ctx, c, http.MethodPost, "/action-faults", "action_fault", doc)
}

// RemoveFault removes the rule or action fault with this ID; an unknown ID
// is a not_found error.
func (c *Client) RemoveFault(ctx context.Context, id int) error {
	return c.do(ctx, http.MethodDelete, "/faults/"+strconv.Itoa(id), nil, nil)
}

// ClearFaults removes every rule and action fault.
func (c *Client) ClearFaults(ctx context.Context) error {
	return c.do(ctx, http.MethodDelete, "/faults", nil, nil)
}
