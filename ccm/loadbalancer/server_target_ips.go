package loadbalancer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/netip"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

// A server target names the address it is reached on in server.ip: the
// primary IPv4 when add_target leaves it out, or an IPv6 host address of
// the server's /64, and remove_target takes the same field (the API
// description of add_target and remove_target). hcloud-go v2.52 neither
// sends nor reads it, so the CCM sends those targets' requests itself and
// reads server.ip from the answers' bodies, which hcloud-go leaves
// readable: a server target on an IPv6 keeps it in the IP field of
// hcloud.LoadBalancerTarget, unused for server targets, where targetOf
// finds it.

// maxLBPages bounds a listing of load balancers: 50 a page.
const maxLBPages = 200

// getLB reads a load balancer with its server targets' IPv6 addresses; nil
// when it does not exist.
func getLB(ctx context.Context, c *hcloud.Client, id int64) (*hcloud.LoadBalancer, error) {
	lb, resp, err := c.LoadBalancer.GetByID(ctx, id)
	if err != nil || lb == nil {
		return lb, err
	}
	var body struct {
		LoadBalancer rawLB `json:"load_balancer"`
	}
	if err := decodeBody(resp, &body); err != nil {
		return nil, fmt.Errorf("reading load balancer %d: %w", id, err)
	}
	patchServerTargetIPs(lb, body.LoadBalancer)
	return lb, nil
}

// listLBs lists load balancers, as AllWithOpts does, with their server
// targets' IPv6 addresses.
func listLBs(ctx context.Context, c *hcloud.Client, opts hcloud.LoadBalancerListOpts) ([]*hcloud.LoadBalancer, error) {
	opts.PerPage, opts.Page = 50, 1
	var out []*hcloud.LoadBalancer
	for range maxLBPages {
		page, resp, err := c.LoadBalancer.List(ctx, opts)
		if err != nil {
			return nil, err
		}
		var body struct {
			LoadBalancers []rawLB `json:"load_balancers"`
		}
		if err := decodeBody(resp, &body); err != nil {
			return nil, fmt.Errorf("listing load balancers: %w", err)
		}
		for i, lb := range page {
			if i < len(body.LoadBalancers) {
				patchServerTargetIPs(lb, body.LoadBalancers[i])
			}
		}
		out = append(out, page...)
		if resp.Meta.Pagination == nil || resp.Meta.Pagination.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.Meta.Pagination.NextPage
	}
	return nil, fmt.Errorf("listing load balancers: more than %d pages", maxLBPages)
}

// lbByName is the load balancer of that name, or nil.
func lbByName(ctx context.Context, c *hcloud.Client, name string) (*hcloud.LoadBalancer, error) {
	all, err := listLBs(ctx, c, hcloud.LoadBalancerListOpts{Name: name})
	if err != nil || len(all) == 0 {
		return nil, err
	}
	return all[0], nil
}

// rawLB is what the CCM reads of a load balancer's body beside hcloud-go.
type rawLB struct {
	ID      int64 `json:"id"`
	Targets []struct {
		Type   string `json:"type"`
		Server *struct {
			ID int64  `json:"id"`
			IP string `json:"ip"`
		} `json:"server"`
	} `json:"targets"`
}

// patchServerTargetIPs records in lb the IPv6 address each server target
// is on; targets on the IPv4 (or private IP) keep IP nil.
func patchServerTargetIPs(lb *hcloud.LoadBalancer, raw rawLB) {
	if raw.ID != lb.ID || len(raw.Targets) != len(lb.Targets) {
		return
	}
	for i, rt := range raw.Targets {
		t := &lb.Targets[i]
		if t.Type != hcloud.LoadBalancerTargetTypeServer || rt.Server == nil || t.Server == nil || t.Server.Server == nil || rt.Server.ID != t.Server.Server.ID {
			continue
		}
		if a, err := netip.ParseAddr(rt.Server.IP); err == nil && a.Is6() && !a.Is4In6() {
			t.IP = &hcloud.LoadBalancerTargetIP{IP: a.String()}
		}
	}
}

// decodeBody decodes the JSON body hcloud-go left in resp.
func decodeBody(resp *hcloud.Response, v any) error {
	if resp == nil || resp.Response == nil || resp.Body == nil {
		return fmt.Errorf("no body to read")
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return json.Unmarshal(data, v)
}

// serverTargetIPAction adds or removes (kind add_target or remove_target)
// the server target t on its IPv6 address.
func serverTargetIPAction(ctx context.Context, c *hcloud.Client, lb *hcloud.LoadBalancer, kind string, t lbTarget) (*hcloud.Action, error) {
	body, err := json.Marshal(map[string]any{"type": "server", "server": map[string]any{"id": t.ServerID, "ip": t.IP}})
	if err != nil {
		return nil, err
	}
	req, err := c.NewRequest(ctx, "POST", fmt.Sprintf("/load_balancers/%d/actions/%s", lb.ID, kind), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	var out schema.ActionGetResponse
	if _, err := c.Do(req, &out); err != nil {
		return nil, err
	}
	return hcloud.ActionFromSchema(out.Action), nil
}
