package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// Cloud drives the running fakecloud through its admin API.
type Cloud struct {
	url        string
	adminToken string         // needed unless the client is on loopback
	Client     *hcloud.Client // the public API, as an operator would use it
}

// Cloud returns the admin client of the running fakecloud.
func (e *Env) Cloud() *Cloud { return NewCloud(e.CloudURL, "") }

// NewCloud is the admin client of a fakecloud at url, such as
// http://127.0.0.1:8080, with its --admin-token (empty on loopback).
func NewCloud(url, adminToken string) *Cloud {
	return &Cloud{url: url, adminToken: adminToken, Client: hcloud.NewClient(hcloud.WithEndpoint(url+"/v1"), hcloud.WithToken(FakeCloudToken),
		hcloud.WithPollOpts(hcloud.PollOpts{BackoffFunc: hcloud.ConstantBackoff(50_000_000)}))}
}

// Apply makes something happen behind the CCM's back.
func (c *Cloud) Apply(ctx context.Context, ev fakecloud.Event) error {
	return c.do(ctx, http.MethodPost, "/_fakecloud/events", ev, nil)
}

// AddFault scripts a request fault.
func (c *Cloud) AddFault(ctx context.Context, r fakecloud.Rule) error {
	return c.do(ctx, http.MethodPost, "/_fakecloud/faults", r, nil)
}

// ClearFaults removes every fault.
func (c *Cloud) ClearFaults(ctx context.Context) error {
	return c.do(ctx, http.MethodDelete, "/_fakecloud/faults", nil, nil)
}

// Requests sums the request counters whose method and route template
// match; empty matches all.
func (c *Cloud) Requests(ctx context.Context, method, template string) (uint64, error) {
	var out struct {
		Counters []fakecloud.Counter `json:"counters"`
	}
	if err := c.do(ctx, http.MethodGet, "/_fakecloud/counters", nil, &out); err != nil {
		return 0, err
	}
	var n uint64
	for _, ct := range out.Counters {
		if (method == "" || ct.Method == method) && (template == "" || ct.Template == template) {
			n += ct.Count
		}
	}
	return n, nil
}

// FaultHits is how many requests the request faults have applied to.
func (c *Cloud) FaultHits(ctx context.Context) (int, error) {
	var out struct {
		Rules []fakecloud.Rule `json:"rules"`
	}
	if err := c.do(ctx, http.MethodGet, "/_fakecloud/faults", nil, &out); err != nil {
		return 0, err
	}
	n := 0
	for _, r := range out.Rules {
		n += r.Hits
	}
	return n, nil
}

// ResetCounters sets the request counters to zero.
func (c *Cloud) ResetCounters(ctx context.Context) error {
	return c.do(ctx, http.MethodDelete, "/_fakecloud/counters", nil, nil)
}

func (c *Cloud) do(ctx context.Context, method, path string, body, out any) error {
	var buf bytes.Buffer
	if body != nil {
		if err := json.NewEncoder(&buf).Encode(body); err != nil {
			return err
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, c.url+path, &buf)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.adminToken != "" {
		req.Header.Set("Authorization", "Bearer "+c.adminToken)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		var e bytes.Buffer
		_, _ = e.ReadFrom(resp.Body)
		return fmt.Errorf("fakecloud %s %s: %s %s", method, path, resp.Status, e.String())
	}
	if out != nil {
		return json.NewDecoder(resp.Body).Decode(out)
	}
	return nil
}

// running reports whether fakecloud has a running server of that name; it
// reads the admin state, which no request counter sees. On an error it
// says yes, as a kubelet that cannot tell keeps posting.
func (c *Cloud) running(ctx context.Context, name string) bool {
	var st struct {
		Servers []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
		} `json:"servers"`
	}
	if err := c.do(ctx, http.MethodGet, "/_fakecloud/state", nil, &st); err != nil {
		return true
	}
	for _, s := range st.Servers {
		if s.Name == name {
			return s.Status == "running"
		}
	}
	return false
}
