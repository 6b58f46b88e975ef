package adminclient

import (
	"context"
	"encoding/json"
	"net/http"
)

// RobotLimits is what the Robot webservice's limits have counted: the
// requests per user and endpoint in the window, and the blocked IPs, as
// fakecloud writes them.
type RobotLimits struct {
	Usage   json.RawMessage `json:"usage"`
	Blocked json.RawMessage `json:"blocked"`
}

// RobotLimits reads the Robot webservice's limits.
func (c *Client) RobotLimits(ctx context.Context) (RobotLimits, error) {
	var l RobotLimits
	err := c.do(ctx, http.MethodGet, "/robot/limits", nil, &l)
	return l, err
}

// ClearRobotLimits forgets the requests counted and the blocked IPs, as if
// an hour had passed.
func (c *Client) ClearRobotLimits(ctx context.Context) error {
	return c.do(ctx, http.MethodDelete, "/robot/limits", nil, nil)
}
