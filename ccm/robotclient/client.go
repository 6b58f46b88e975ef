// Package robotclient is a client of the Hetzner Robot webservice, for the
// CCM's dedicated (Robot) servers: the server listing, one server, and a
// server's reset state, which says whether it is powered off.
//
// The webservice is strict: GET /server may be called 200 times an hour by
// every tool of an account together, and three failed logins block the
// caller's IP for ten minutes. Cache (cache.go) is what the CCM uses: one
// listing shared by every controller, and no call while the webservice has
// said no (rate limit, bad credentials).
//
// The wire format is the webservice's documentation's
// (https://robot.hetzner.com/doc/webservice/en.html, sections "Server",
// "Reset" and "Errors"); docs/explanation/robot-facts.md sums it up.
package robotclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/bounds"
)

// DefaultEndpoint is the webservice's base URL.
const DefaultEndpoint = "https://robot-ws.your-server.de"

// Server is a dedicated server as GET /server lists it.
type Server struct {
	Number    int64  `json:"server_number"`
	Name      string `json:"server_name"`
	IPv4      string `json:"server_ip"`
	IPv6Net   string `json:"server_ipv6_net"` // e.g. "2a01:4f8:111:4221::", no prefix length
	Product   string `json:"product"`         // e.g. "EX44"
	DC        string `json:"dc"`              // e.g. "FSN1-DC14"
	Status    string `json:"status"`          // "ready" or "in process"
	Cancelled bool   `json:"cancelled"`
}

// Reset is a server's reset state; OperatingStatus "shut off" means it is
// powered off.
type Reset struct {
	ServerNumber    int64  `json:"server_number"`
	OperatingStatus string `json:"operating_status"`
}

// Client calls the webservice with HTTP basic authentication.
type Client struct {
	endpoint       string
	user, password string
	// credentials, when set, gives the user and password of each request
	// instead (credentials that rotate).
	credentials func() (user, password string)
	http        *http.Client
	userAgent   string
}

// WithCredentials makes the client ask for its user and password at each
// request, so credentials that rotate apply at once.
func (c *Client) WithCredentials(get func() (user, password string)) *Client {
	c.credentials = get
	return c
}

// NewClient returns a client of the webservice at endpoint (DefaultEndpoint
// when empty). Requests time out after timeout (15 s when not positive);
// an answer longer than 32 MiB fails.
func NewClient(endpoint, user, password, userAgent string, timeout time.Duration) *Client {
	if endpoint == "" {
		endpoint = DefaultEndpoint
	}
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	return &Client{endpoint: strings.TrimSuffix(endpoint, "/"), user: user, password: password,
		http: &http.Client{Timeout: timeout, Transport: bounds.Transport(nil)}, userAgent: userAgent}
}

// WithTransport sends the client's requests through rt (ccm doctor
// counts them).
func (c *Client) WithTransport(rt http.RoundTripper) *Client {
	c.http.Transport = bounds.Transport(rt)
	return c
}

// Servers lists every server of the account. An account without servers
// answers 404 SERVER_NOT_FOUND; that is an empty list here.
func (c *Client) Servers(ctx context.Context) ([]Server, error) {
	var wrapped []struct {
		Server Server `json:"server"`
	}
	if err := c.get(ctx, "/server", &wrapped); err != nil {
		if IsCode(err, CodeServerNotFound) {
			return nil, nil
		}
		return nil, err
	}
	out := make([]Server, len(wrapped))
	for i, w := range wrapped {
		out[i] = w.Server
	}
	return out, nil
}

// Server reads one server.
func (c *Client) Server(ctx context.Context, number int64) (Server, error) {
	var wrapped struct {
		Server Server `json:"server"`
	}
	err := c.get(ctx, "/server/"+strconv.FormatInt(number, 10), &wrapped)
	return wrapped.Server, err
}

// Reset reads a server's reset state.
func (c *Client) Reset(ctx context.Context, number int64) (Reset, error) {
	var wrapped struct {
		Reset Reset `json:"reset"`
	}
	err := c.get(ctx, "/reset/"+strconv.FormatInt(number, 10), &wrapped)
	return wrapped.Reset, err
}

func (c *Client) get(ctx context.Context, path string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint+path, nil)
	if err != nil {
		return err
	}
	user, password := c.user, c.password
	if c.credentials != nil {
		user, password = c.credentials()
	}
	req.SetBasicAuth(user, password)
	req.Header.Set("Accept", "application/json")
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("robot webservice: GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body) // at most bounds.Answer
	if err != nil {
		return fmt.Errorf("robot webservice: GET %s: %w", path, err)
	}
	if resp.StatusCode >= 300 {
		return decodeError(path, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("robot webservice: GET %s: decoding the answer: %w", path, err)
	}
	return nil
}
