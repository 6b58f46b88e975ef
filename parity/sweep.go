package parity

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// Sweep deletes what the label selector selects: load balancers, then
// servers (waiting until they are gone, which frees their primary IPs),
// networks, primary IPs and certificates. primaryIPs are deleted too if
// they are left and unassigned: a run's servers' own, which may carry no
// label. It returns what it removed, and every error it met.
func Sweep(ctx context.Context, t *Target, selector string, primaryIPs []int64) ([]string, error) {
	c := t.client(t.transport())
	sw := &sweeper{ctx: ctx, c: c, t: t}
	list := hcloud.ListOpts{LabelSelector: selector, PerPage: 50}

	lbs, err := c.LoadBalancer.AllWithOpts(ctx, hcloud.LoadBalancerListOpts{ListOpts: list})
	sw.fail("list load balancers", err)
	for _, lb := range lbs {
		var a *hcloud.Action
		err := sw.unlocked(func() error {
			res, _, err := c.LoadBalancer.DeleteWithResult(ctx, lb)
			a = res.Action
			return err
		})
		sw.deleted("load balancer", lb.Name, lb.ID, a, err)
	}
	servers, err := c.Server.AllWithOpts(ctx, hcloud.ServerListOpts{ListOpts: list})
	sw.fail("list servers", err)
	for _, s := range servers {
		var a *hcloud.Action
		err := sw.unlocked(func() error {
			res, _, err := c.Server.DeleteWithResult(ctx, s)
			if res != nil {
				a = res.Action
			}
			return err
		})
		sw.deleted("server", s.Name, s.ID, a, err)
	}
	networks, err := c.Network.AllWithOpts(ctx, hcloud.NetworkListOpts{ListOpts: list})
	sw.fail("list networks", err)
	for _, n := range networks {
		err := sw.unlocked(func() error { _, err := c.Network.Delete(ctx, n); return err })
		sw.deleted("network", n.Name, n.ID, nil, err)
	}
	ips, err := c.PrimaryIP.AllWithOpts(ctx, hcloud.PrimaryIPListOpts{ListOpts: list})
	sw.fail("list primary IPs", err)
	for _, id := range primaryIPs {
		if slices.ContainsFunc(ips, func(p *hcloud.PrimaryIP) bool { return p.ID == id }) {
			continue
		}
		p, _, err := c.PrimaryIP.GetByID(ctx, id)
		sw.fail(fmt.Sprintf("read primary IP %d", id), err)
		if p != nil {
			ips = append(ips, p)
		}
	}
	for _, p := range ips {
		if p.AssigneeID != 0 && slices.ContainsFunc(servers, func(s *hcloud.Server) bool { return s.ID == p.AssigneeID }) {
			p = sw.released(p) // the API frees a deleted server's primary IPs after its action
		}
		if p == nil {
			continue
		}
		if p.AssigneeID != 0 {
			sw.fail(fmt.Sprintf("primary IP %s (%d)", p.Name, p.ID), fmt.Errorf("assigned to server %d, which is not the kit's: left", p.AssigneeID))
			continue
		}
		err := sw.unlocked(func() error { _, err := c.PrimaryIP.Delete(ctx, p); return err })
		sw.deleted("primary IP", p.Name, p.ID, nil, err)
	}
	certs, err := c.Certificate.AllWithOpts(ctx, hcloud.CertificateListOpts{ListOpts: list})
	sw.fail("list certificates", err)
	for _, cert := range certs {
		err := sw.unlocked(func() error { _, err := c.Certificate.Delete(ctx, cert); return err })
		sw.deleted("certificate", cert.Name, cert.ID, nil, err)
	}
	return sw.removed, errors.Join(sw.errs...)
}

type sweeper struct {
	ctx     context.Context
	c       *hcloud.Client
	t       *Target
	removed []string
	errs    []error
}

func (sw *sweeper) fail(what string, err error) {
	if err != nil {
		sw.errs = append(sw.errs, fmt.Errorf("%s: %w", what, err))
	}
}

// released reads a primary IP of a deleted server until it is deleted
// with it (nil) or unassigned, at most for Timing.ActionWait.
func (sw *sweeper) released(p *hcloud.PrimaryIP) *hcloud.PrimaryIP {
	got := p
	err := poll(sw.ctx, sw.t.Clock, sw.t.Timing.Poll, sw.t.Timing.ActionWait, func() (bool, error) {
		var err error
		got, _, err = sw.c.PrimaryIP.GetByID(sw.ctx, p.ID)
		return got == nil || got.AssigneeID == 0, err
	})
	if err != nil && !errors.Is(err, errNotWithin) {
		sw.fail(fmt.Sprintf("read primary IP %d", p.ID), err)
		return nil
	}
	return got
}

// unlocked calls del until the resource is no longer locked by a running
// action (a server interrupted while it is created), at most for
// Timing.ActionWait.
func (sw *sweeper) unlocked(del func() error) error {
	var last error
	err := poll(sw.ctx, sw.t.Clock, sw.t.Timing.Poll, sw.t.Timing.ActionWait, func() (bool, error) {
		last = del()
		if hcloud.IsError(last, hcloud.ErrorCodeLocked) || hcloud.IsError(last, hcloud.ErrorCodeConflict) {
			return false, nil
		}
		return true, last
	})
	if errors.Is(err, errNotWithin) {
		return fmt.Errorf("still locked after %s: %w", sw.t.Timing.ActionWait, last)
	}
	return err
}

// deleted notes a deletion, waiting for its action if it has one: a
// server's must end before its primary IPs and networks are free.
func (sw *sweeper) deleted(kind, name string, id int64, a *hcloud.Action, err error) {
	what := fmt.Sprintf("%s %s (%d)", kind, name, id)
	if hcloud.IsError(err, hcloud.ErrorCodeNotFound) {
		return // gone meanwhile, with its server
	}
	if err == nil && a != nil {
		_, _, err = pollAction(sw.ctx, sw.c, sw.t, a.ID)
	}
	if err != nil {
		sw.fail("delete "+what, err)
		return
	}
	sw.removed = append(sw.removed, what)
}

// pollAction polls an action until it is no longer running, sleeping on
// the target's clock, at most for Timing.ActionWait, and returns its last
// answer.
func pollAction(ctx context.Context, c *hcloud.Client, t *Target, id int64) (*hcloud.Action, *hcloud.Response, error) {
	var a *hcloud.Action
	var resp *hcloud.Response
	err := poll(ctx, t.Clock, t.Timing.Poll, t.Timing.ActionWait, func() (bool, error) {
		var err error
		if a, resp, err = c.Action.GetByID(ctx, id); err != nil {
			return false, err
		}
		if a == nil {
			return false, errors.New("not found")
		}
		return a.Status != hcloud.ActionStatusRunning, nil
	})
	if errors.Is(err, errNotWithin) {
		return nil, nil, fmt.Errorf("action %d still running after %s", id, t.Timing.ActionWait)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("wait for action %d: %w", id, err)
	}
	return a, resp, nil
}
