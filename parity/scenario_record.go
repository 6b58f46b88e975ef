package parity

import (
	"context"
	"fmt"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// publicRecord replays requests whose live answers public material shows
// (docs/reference/fakecloud/deviations.md, "Evidence from the live API"):
// its snapshot, testdata/parity/public-record.json, holds those answers as
// far as they were seen, each step with its reference and date, and a run
// is compared with them on what they show alone.
func publicRecord(ctx context.Context, s *session) error {
	network, err := s.createNetwork(ctx, "create a network", "record")
	if err != nil {
		return err
	}
	var srv *hcloud.Server
	if err := s.step(ctx, "create a server in the network", func(c *hcloud.Client) error {
		opts := s.serverOpts("record")
		opts.Networks = []*hcloud.Network{network}
		res, _, err := c.Server.Create(ctx, opts)
		srv = res.Server
		return err
	}); err != nil {
		return fmt.Errorf("create a server in the network: %w", err)
	}
	s.trackPrimaryIPs(ctx, srv)
	if err := s.provoke(ctx, []namedStep{{
		name: "unassign the primary IPv4 of the running server",
		do: func(c *hcloud.Client) error {
			_, _, err := c.PrimaryIP.Unassign(ctx, srv.PublicNet.IPv4.ID)
			return err
		},
	}, {
		name: "create a server of a retired type",
		do: func(c *hcloud.Client) error {
			opts := s.serverOpts("retired")
			opts.ServerType = &hcloud.ServerType{Name: "cx22"}
			_, _, err := c.Server.Create(ctx, opts)
			return err
		},
	}, {
		name: "create a server of a type where it is not sold",
		do: func(c *hcloud.Client) error {
			opts := s.serverOpts("unsold")
			opts.ServerType, opts.Location = &hcloud.ServerType{Name: "cx23"}, &hcloud.Location{Name: "ash"}
			_, _, err := c.Server.Create(ctx, opts)
			return err
		},
	}, {
		name: "rename the server with a body that is not JSON",
		do: func(c *hcloud.Client) error {
			req, err := c.NewRequest(ctx, "PUT", fmt.Sprintf("/servers/%d", srv.ID), strings.NewReader(`{"name":`))
			if err != nil {
				return err
			}
			_, err = c.Do(req, nil)
			return err
		},
	}}); err != nil {
		return err
	}
	// Its primary IPs go with it (auto_delete); the network goes after.
	if err := s.deleteServer(ctx, srv); err != nil {
		return err
	}
	if err := s.deleteNetwork(ctx, network); err != nil {
		return err
	}
	return rateLimited(ctx, s)
}
