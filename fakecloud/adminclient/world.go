package adminclient

import (
	"context"
	"net/http"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// ResetTarget is what Reset leaves: the empty world or the seed world.
type ResetTarget string

// The worlds Reset goes back to.
const (
	ResetEmpty ResetTarget = "empty" // no resources; the catalogue stays
	ResetSeed  ResetTarget = "seed"  // the last world seeded, or empty without one
)

// Apply makes something happen behind the clients' back.
func (c *Client) Apply(ctx context.Context, e fakecloud.Event) error {
	return c.do(ctx, http.MethodPost, "/events", e, nil)
}

// ApplyDoc is Apply with the event as YAML or JSON, sent as written.
func (c *Client) ApplyDoc(ctx context.Context, doc []byte) error {
	return c.do(ctx, http.MethodPost, "/events", doc, nil)
}

// LoadScenario starts a scenario; its steps' times count from now.
func (c *Client) LoadScenario(ctx context.Context, sc fakecloud.Scenario) error {
	return c.do(ctx, http.MethodPost, "/scenarios", sc, nil)
}

// LoadScenarioDoc is LoadScenario with a scenario file's YAML or JSON.
func (c *Client) LoadScenarioDoc(ctx context.Context, doc []byte) error {
	return c.do(ctx, http.MethodPost, "/scenarios", doc, nil)
}

// Seed replaces the world with a seed world.
func (c *Client) Seed(ctx context.Context, w fakecloud.World) error {
	return c.do(ctx, http.MethodPost, "/seed", w, nil)
}

// SeedDoc is Seed with a seed world file's YAML or JSON.
func (c *Client) SeedDoc(ctx context.Context, doc []byte) error {
	return c.do(ctx, http.MethodPost, "/seed", doc, nil)
}

// Reset empties the world or goes back to the seed world.
func (c *Client) Reset(ctx context.Context, to ResetTarget) error {
	return c.do(ctx, http.MethodPost, "/reset", map[string]ResetTarget{"to": to}, nil)
}

// Export returns the whole world as a JSON snapshot.
func (c *Client) Export(ctx context.Context) ([]byte, error) {
	var snapshot []byte
	err := c.do(ctx, http.MethodGet, "/state", nil, &snapshot)
	return snapshot, err
}

// Import replaces the world with a snapshot from Export.
func (c *Client) Import(ctx context.Context, snapshot []byte) error {
	return c.do(ctx, http.MethodPut, "/state", snapshot, nil)
}

// SetRealism sets how fakecloud reads what the API's documentation leaves
// open, and returns the realism in force.
func (c *Client) SetRealism(ctx context.Context, r fakecloud.Realism) (fakecloud.Realism, error) {
	var out struct {
		Realism fakecloud.Realism `json:"realism"`
	}
	err := c.do(ctx, http.MethodPut, "/realism", r, &out)
	return out.Realism, err
}

// Fidelity reads which Hetzner Cloud API the fakecloud simulates.
func (c *Client) Fidelity(ctx context.Context) (fakecloud.Fidelity, error) {
	var out struct {
		Fidelity fakecloud.Fidelity `json:"fidelity"`
	}
	err := c.do(ctx, http.MethodGet, "/fidelity", nil, &out)
	return out.Fidelity, err
}

// Projects lists the fakecloud's projects, the default one first.
func (c *Client) Projects(ctx context.Context) ([]string, error) {
	var out struct {
		Projects []string `json:"projects"`
	}
	err := c.do(ctx, http.MethodGet, "/projects", nil, &out)
	return out.Projects, err
}

// AddToken gives the default project a token from now on.
func (c *Client) AddToken(ctx context.Context, token string, readOnly bool) error {
	return c.do(ctx, http.MethodPost, "/tokens", map[string]any{"token": token, "read_only": readOnly}, nil)
}

// RevokeToken takes a token of the default project away: it gets 401 from
// now on.
func (c *Client) RevokeToken(ctx context.Context, token string) error {
	return c.do(ctx, http.MethodPost, "/tokens/revoke", map[string]any{"token": token}, nil)
}
