package parity

import (
	"context"
	"fmt"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// missingID is an ID no resource of the project has.
const missingID = 1

// notExercisedRateLimit says why the rate limit steps are fakecloud's only.
const notExercisedRateLimit = "rate_limited: the kit never provokes a rate limit on the live API; the steps marked only fakecloud show fakecloud's answer"

// mistakes provokes the answers to the mistakes the CCM can make: a
// resource that does not exist, a name taken, a resource locked by a
// running action, invalid input, a spent rate limit (fakecloud only).
func mistakes(ctx context.Context, s *session) error {
	if err := s.provoke(ctx, []namedStep{{
		name: "get a server that does not exist",
		do: func(c *hcloud.Client) error {
			_, _, err := c.Server.GetByID(ctx, missingID)
			return err
		},
	}, {
		name: "get a load balancer that does not exist",
		do: func(c *hcloud.Client) error {
			_, _, err := c.LoadBalancer.GetByID(ctx, missingID)
			return err
		},
	}}); err != nil {
		return err
	}
	network, err := s.createNetwork(ctx, "create a network", "taken")
	if err != nil {
		return err
	}
	if err := s.provoke(ctx, []namedStep{{
		name: "create a network with its name taken",
		do: func(c *hcloud.Client) error {
			_, _, err := c.Network.Create(ctx, hcloud.NetworkCreateOpts{Name: network.Name, IPRange: network.IPRange, Labels: s.labels()})
			return err
		},
	}, {
		name: "create a network with a bad label",
		do: func(c *hcloud.Client) error {
			labels := s.labels()
			labels["bad label!"] = "x"
			_, _, err := c.Network.Create(ctx, hcloud.NetworkCreateOpts{Name: s.name("bad-label"), IPRange: network.IPRange, Labels: labels})
			return err
		},
	}, {
		name: "list servers 1000 a page",
		do: func(c *hcloud.Client) error {
			_, _, err := c.Server.List(ctx, hcloud.ServerListOpts{ListOpts: hcloud.ListOpts{PerPage: 1000, LabelSelector: s.runSelector()}})
			return err
		},
	}}); err != nil {
		return err
	}
	if err := s.deleteNetwork(ctx, network); err != nil {
		return err
	}
	if err := locked(ctx, s); err != nil {
		return err
	}
	return rateLimited(ctx, s)
}

// locked powers a server off while create_server still runs on it.
func locked(ctx context.Context, s *session) error {
	var srv *hcloud.Server
	if err := s.stepRunning("create a server (its create_server left running)", func(c *hcloud.Client) error {
		res, _, err := c.Server.Create(ctx, s.serverOpts("locked"))
		srv = res.Server
		return err
	}); err != nil {
		return fmt.Errorf("create a server: %w", err)
	}
	s.trackPrimaryIPs(ctx, srv)
	if err := s.provoke(ctx, []namedStep{{
		name: "power it off while create_server runs",
		do: func(c *hcloud.Client) error {
			_, _, err := c.Server.Poweroff(ctx, srv)
			return err
		},
	}}); err != nil {
		return err
	}
	return s.deleteServer(ctx, srv)
}

// rateLimited spends a rate limited fakecloud's last request, then asks
// once more. The live API has no such target: its steps are left out.
func rateLimited(ctx context.Context, s *session) error {
	s.notLive = append(s.notLive, notExercisedRateLimit)
	if s.t.RateLimited == nil {
		return nil
	}
	lt, err := s.t.RateLimited()
	if err != nil {
		return fmt.Errorf("open a rate limited target: %w", err)
	}
	s.closers = append(s.closers, lt.Close)
	c := lt.client(s.rec.Wrap(lt.transport(), lt.Endpoint))
	list := func(c *hcloud.Client) error {
		_, _, err := c.Server.List(ctx, hcloud.ServerListOpts{ListOpts: hcloud.ListOpts{LabelSelector: s.runSelector()}})
		return err
	}
	_ = s.recordOn(c, "list servers: the budget's last request", OnlyFakecloud, list)
	_ = s.recordOn(c, "list servers again: rate limited", OnlyFakecloud, list)
	return nil
}
