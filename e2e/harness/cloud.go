package harness

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/adminclient"
)

// Cloud drives the running fakecloud through its admin API.
type Cloud struct {
	admin  *adminclient.Client
	Client *hcloud.Client // the public API, as an operator would use it

	mu       sync.Mutex
	statusAt time.Time         // when status was read
	status   map[string]string // server name → status, shared by the kubelets for a second
}

// Cloud returns the admin client of the running fakecloud.
func (e *Env) Cloud() *Cloud { return NewCloud(e.CloudURL, "") }

// NewCloud is the admin client of a fakecloud at url, such as
// http://127.0.0.1:8080, with its --admin-token (empty on loopback).
func NewCloud(url, adminToken string) *Cloud {
	return &Cloud{admin: adminclient.New(url, adminToken, http.DefaultClient), Client: hcloud.NewClient(hcloud.WithEndpoint(url+"/v1"), hcloud.WithToken(FakeCloudToken),
		hcloud.WithPollOpts(hcloud.PollOpts{BackoffFunc: hcloud.ConstantBackoff(50_000_000)}))}
}

// Apply makes something happen behind the CCM's back.
func (c *Cloud) Apply(ctx context.Context, ev fakecloud.Event) error { return c.admin.Apply(ctx, ev) }

// SetRealism switches fakecloud's realism (fakecloud.RealismPessimistic).
func (c *Cloud) SetRealism(ctx context.Context, mode string) error {
	_, err := c.admin.SetRealism(ctx, fakecloud.Realism{Mode: mode})
	return err
}

// AddFault scripts a request fault.
func (c *Cloud) AddFault(ctx context.Context, r fakecloud.Rule) error {
	_, err := c.admin.AddFault(ctx, r)
	return err
}

// ClearRobotLimits lifts the Robot webservice's hourly limits and login
// blocks, as if an hour had passed.
func (c *Cloud) ClearRobotLimits(ctx context.Context) error { return c.admin.ClearRobotLimits(ctx) }

// ClearFaults removes every fault.
func (c *Cloud) ClearFaults(ctx context.Context) error { return c.admin.ClearFaults(ctx) }

// ResetCounters sets the request counters to zero.
func (c *Cloud) ResetCounters(ctx context.Context) error { return c.admin.ResetCounters(ctx) }

// Requests sums the request counters whose method and route template
// match; empty matches all.
func (c *Cloud) Requests(ctx context.Context, method, template string) (uint64, error) {
	counters, err := c.admin.Counters(ctx)
	if err != nil {
		return 0, err
	}
	var n uint64
	for _, ct := range counters {
		if (method == "" || ct.Method == method) && (template == "" || ct.Template == template) {
			n += ct.Count
		}
	}
	return n, nil
}

// RequestsWithStatus sums the request counters of routes starting with
// prefix answered with status.
func (c *Cloud) RequestsWithStatus(ctx context.Context, prefix string, status int) (uint64, error) {
	counters, err := c.admin.Counters(ctx)
	if err != nil {
		return 0, err
	}
	var n uint64
	for _, ct := range counters {
		if strings.HasPrefix(ct.Template, prefix) && ct.Status == status {
			n += ct.Count
		}
	}
	return n, nil
}

// RequestsByRoute is the request counters as "METHOD template" → count.
func (c *Cloud) RequestsByRoute(ctx context.Context) (map[string]uint64, error) {
	counters, err := c.admin.Counters(ctx)
	if err != nil {
		return nil, err
	}
	by := map[string]uint64{}
	for _, ct := range counters {
		by[ct.Method+" "+ct.Template] += ct.Count
	}
	return by, nil
}

// FaultHits is how many requests the request faults have applied to.
func (c *Cloud) FaultHits(ctx context.Context) (int, error) {
	faults, err := c.admin.Faults(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range faults.Rules {
		n += r.Hits
	}
	return n, nil
}

// running reports whether fakecloud has a running server (cloud or
// dedicated) of that name; it
// reads the admin state, which no request counter sees, at most once a
// second for all kubelets. On an error it says yes, as a kubelet that
// cannot tell keeps posting.
func (c *Cloud) running(ctx context.Context, name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.status == nil || time.Since(c.statusAt) > time.Second {
		status, err := c.serverStatus(ctx)
		if err != nil {
			return true
		}
		c.status, c.statusAt = status, time.Now()
	}
	return c.status[name] == "running"
}

// serverStatus reads every server's status from the admin snapshot.
func (c *Cloud) serverStatus(ctx context.Context) (map[string]string, error) {
	st, err := c.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	status := make(map[string]string, len(st.Servers))
	for _, s := range st.Servers {
		status[s.Name] = s.Status
	}
	// A dedicated server's kubelet posts while the server is on; a tower
	// server's power state is unknown to the webservice ("not supported").
	for _, d := range st.DedicatedServers {
		if d.OperatingStatus != "shut off" {
			status[d.Name] = "running"
		}
	}
	return status, nil
}

// ClearJournal forgets fakecloud's journal entries.
func (c *Cloud) ClearJournal(ctx context.Context) error { return c.admin.ClearJournal(ctx) }

// Journal is fakecloud's record of the API requests f selects.
func (c *Cloud) Journal(ctx context.Context, f fakecloud.JournalFilter) ([]fakecloud.JournalEntry, error) {
	return c.admin.Journal(ctx, f)
}

// Snapshot is the part of fakecloud's state that scenarios check, read
// through the admin API, which no request counter sees.
type Snapshot struct {
	Servers []struct {
		ID     int64  `json:"id"`
		Name   string `json:"name"`
		Status string `json:"status"`
	} `json:"servers"`
	DedicatedServers []struct {
		Number          int64  `json:"server_number"`
		Name            string `json:"server_name"`
		OperatingStatus string `json:"operating_status"`
	} `json:"dedicated_servers"`
	LoadBalancers []struct {
		ID      int64  `json:"id"`
		Name    string `json:"name"`
		Targets []struct {
			Type   string `json:"type"`
			Server *struct {
				ID int64 `json:"id"`
			} `json:"server"`
		} `json:"targets"`
	} `json:"load_balancers"`
}

// Snapshot reads the servers and load balancers.
func (c *Cloud) Snapshot(ctx context.Context) (Snapshot, error) {
	var st Snapshot
	b, err := c.admin.Export(ctx)
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(b, &st)
}

// AddToken gives the project a token from now on.
func (c *Cloud) AddToken(ctx context.Context, token string) error {
	return c.admin.AddToken(ctx, token, false)
}

// RevokeToken takes a token away: it gets 401 from now on.
func (c *Cloud) RevokeToken(ctx context.Context, token string) error {
	return c.admin.RevokeToken(ctx, token)
}
