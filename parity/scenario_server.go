package parity

import (
	"context"
	"errors"
	"fmt"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// serverLife is a server's life, with check 2 after every change and
// checks 1, 3, 4 and 5 along the way: create, rename, add a label, power
// off and on, shut down, change type, attach to and detach from a
// network, unassign and assign its primary IPv4, delete.
func serverLife(ctx context.Context, s *session) error {
	network, err := s.createNetwork(ctx, "create a network to attach to", "life")
	if err != nil {
		return err
	}
	srv, err := s.createServer(ctx, "create a server", "life")
	if err != nil {
		return err
	}
	changes := []struct {
		change, step string
		do           func(c *hcloud.Client) (*hcloud.Action, error)
		wait         func() error                 // until the change is done, before check 2 looks
		check        func(a *hcloud.Action) error // checks 3 and 4 on the change's action, after check 2
	}{{
		change: "rename", step: "rename the server",
		do: func(c *hcloud.Client) (*hcloud.Action, error) {
			_, _, err := c.Server.Update(ctx, srv, hcloud.ServerUpdateOpts{Name: s.name("life-renamed")})
			return nil, err
		},
	}, {
		change: "label", step: "add a label",
		do: func(c *hcloud.Client) (*hcloud.Action, error) {
			labels := s.labels()
			labels["parity.hcloudlab.dev/step"] = "labelled"
			_, _, err := c.Server.Update(ctx, srv, hcloud.ServerUpdateOpts{Labels: labels})
			return nil, err
		},
	}, {
		change: "poweroff", step: "power off",
		do: func(c *hcloud.Client) (*hcloud.Action, error) {
			a, _, err := c.Server.Poweroff(ctx, srv)
			return a, err
		},
	}, {
		change: "poweron", step: "power on",
		do: func(c *hcloud.Client) (*hcloud.Action, error) {
			a, _, err := c.Server.Poweron(ctx, srv)
			return a, err
		},
	}, {
		change: "shutdown", step: "shut down (ACPI)",
		do: func(c *hcloud.Client) (*hcloud.Action, error) {
			a, _, err := c.Server.Shutdown(ctx, srv)
			return a, err
		},
		wait: func() error { return s.waitOff(ctx, srv) },
	}, {
		change: "change_type", step: "change the type (server off)",
		do: func(c *hcloud.Client) (*hcloud.Action, error) {
			a, _, err := c.Server.ChangeType(ctx, srv, hcloud.ServerChangeTypeOpts{ServerType: &hcloud.ServerType{Name: s.cat.nextType.Name}})
			return a, err
		},
	}, {
		change: "attach", step: "attach to the network",
		do: func(c *hcloud.Client) (*hcloud.Action, error) {
			a, _, err := c.Server.AttachToNetwork(ctx, srv, hcloud.ServerAttachToNetworkOpts{Network: network})
			return a, err
		},
		check: func(a *hcloud.Action) error {
			return s.checkListed(ctx, "4/attach-via-network", "a server's attach_to_network is listed in GET /networks/actions", "networks", a.ID)
		},
	}, {
		change: "detach", step: "detach from the network",
		do: func(c *hcloud.Client) (*hcloud.Action, error) {
			a, _, err := c.Server.DetachFromNetwork(ctx, srv, hcloud.ServerDetachFromNetworkOpts{Network: network})
			return a, err
		},
	}, {
		change: "unassign_primary_ip", step: "unassign the primary IPv4 (server off)",
		do: func(c *hcloud.Client) (*hcloud.Action, error) {
			a, _, err := c.PrimaryIP.Unassign(ctx, srv.PublicNet.IPv4.ID)
			return a, err
		},
		check: func(a *hcloud.Action) error {
			return s.checkListed(ctx, "4/unassign_primary_ip", "unassign_primary_ip is listed in GET /servers/actions", "servers", a.ID)
		},
	}, {
		change: "assign_primary_ip", step: "assign it again",
		do: func(c *hcloud.Client) (*hcloud.Action, error) {
			a, _, err := c.PrimaryIP.Assign(ctx, hcloud.PrimaryIPAssignOpts{ID: srv.PublicNet.IPv4.ID, AssigneeType: "server", AssigneeID: srv.ID})
			return a, err
		},
		check: func(a *hcloud.Action) error {
			return s.checkListed(ctx, "4/assign_primary_ip", "assign_primary_ip is listed in GET /servers/actions", "servers", a.ID)
		},
	}, {
		change: "delete", step: "delete the server",
		do: func(c *hcloud.Client) (*hcloud.Action, error) {
			res, _, err := c.Server.DeleteWithResult(ctx, srv)
			if err != nil {
				return nil, err
			}
			return res.Action, nil
		},
		check: func(a *hcloud.Action) error { return s.checkDeleteListed(ctx, a.ID) },
	}}
	if err := s.feedChange(ctx, "create", srv.ID); err != nil {
		return err
	}
	for _, ch := range changes {
		var a *hcloud.Action
		if err := s.step(ctx, ch.step, func(c *hcloud.Client) error {
			var err error
			a, err = ch.do(c)
			return err
		}); err != nil {
			return fmt.Errorf("%s: %w", ch.step, err)
		}
		if ch.wait != nil {
			if err := ch.wait(); err != nil {
				return fmt.Errorf("%s: %w", ch.step, err)
			}
		}
		if err := s.feedChange(ctx, ch.change, srv.ID); err != nil {
			return err
		}
		if ch.check != nil {
			if err := ch.check(a); err != nil {
				return fmt.Errorf("%s: %w", ch.step, err)
			}
		}
	}
	if err := s.checkOrder(ctx); err != nil {
		return err
	}
	if err := s.checkReach(ctx); err != nil {
		return err
	}
	return s.deleteNetwork(ctx, network)
}

// waitOff waits for a server to go off after an ACPI shutdown (a
// fakecloud server may be off at once; a live one once its OS obeys). An
// OS that ignored the request (it may come before the OS listens) gets
// it once more halfway, and one that never obeys is powered off, with a
// note: the scenario goes on from a server that is off.
func (s *session) waitOff(ctx context.Context, srv *hcloud.Server) error {
	isOff := func() (bool, error) {
		got, _, err := s.quiet.Server.GetByID(ctx, srv.ID)
		if err != nil {
			return false, err
		}
		return got != nil && got.Status == hcloud.ServerStatusOff, nil
	}
	half := s.t.Timing.Shutdown / 2
	if err := s.waitFor(ctx, "off after the shutdown", half, isOff); !errors.Is(err, errNotWithin) {
		return err
	}
	s.note(fmt.Sprintf("the server was not off %s after the shutdown: sent it again", half))
	if _, _, err := s.quiet.Server.Shutdown(ctx, srv); err != nil {
		return fmt.Errorf("shut down again: %w", err)
	}
	if err := s.waitFor(ctx, "off after the second shutdown", half, isOff); !errors.Is(err, errNotWithin) {
		return err
	}
	s.note(fmt.Sprintf("the server ignored the shutdown for %s: powered off", s.t.Timing.Shutdown))
	a, _, err := s.quiet.Server.Poweroff(ctx, srv)
	if err != nil {
		return fmt.Errorf("power off after the shutdown: %w", err)
	}
	_, err = s.waitAction(ctx, a.ID)
	return err
}
