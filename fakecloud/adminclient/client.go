// Package adminclient is a Go client of fakecloud's admin API under
// /_fakecloud/: fault rules and action faults, events, scenarios, the rate
// limit, the world (seed, reset, export and import), the journal and the
// request counters.
package adminclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Client talks to one fakecloud's admin API.
type Client struct {
	base    string // fakecloud's address, without /v1
	token   string
	http    *http.Client
	project string // the project every request names; empty for the default one
}

// New returns a client of the fakecloud at baseURL, such as
// http://127.0.0.1:8080 (the API's own base, with /v1, works too).
// adminToken is fakecloud's --admin-token, empty for one that answers its
// loopback clients; a nil hc is http.DefaultClient.
func New(baseURL, adminToken string, hc *http.Client) *Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	base := strings.TrimSuffix(strings.TrimSuffix(baseURL, "/"), "/v1")
	return &Client{base: base, token: adminToken, http: hc}
}

// Project returns a client whose every request inspects or changes the
// project of the name (fakecloud's --project), "" for the default one.
func (c *Client) Project(name string) *Client {
	out := *c
	out.project = name
	return &out
}

// do sends a request to path under /_fakecloud and decodes a 2xx answer
// into out, unless out is nil. A []byte body is sent as written, any other
// non-nil body as JSON. Any answer but 2xx is an *Error.
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var data []byte
	switch b := body.(type) {
	case nil:
	case []byte:
		data = b
	default:
		var err error
		if data, err = json.Marshal(b); err != nil {
			return fmt.Errorf("%s %s: encode body: %w", method, path, err)
		}
	}
	target := c.base + "/_fakecloud" + path
	if c.project != "" {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		target += sep + "project=" + url.QueryEscape(c.project)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, bytes.NewReader(data))
	if err != nil {
		return err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		return newError(method, path, resp.StatusCode, answer)
	}
	if out == nil {
		return nil
	}
	if raw, ok := out.(*[]byte); ok {
		*raw = answer
		return nil
	}
	if err := json.Unmarshal(answer, out); err != nil {
		return fmt.Errorf("%s %s: decode answer: %w", method, path, err)
	}
	return nil
}

// keyed sends a request whose answer is an object holding the result
// under key, such as {"rule": {...}}, and returns the result.
func keyed[T any](ctx context.Context, c *Client, method, path, key string, body any) (T, error) {
	var out map[string]T
	err := c.do(ctx, method, path, body, &out)
	return out[key], err
}
