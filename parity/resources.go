package parity

import (
	"context"
	"fmt"
	"net"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// The addresses the scenarios choose; the normaliser keeps them.
const (
	networkRange = "10.0.0.0/16"
	subnetRange  = "10.0.1.0/24"
	routeDest    = "10.100.0.0/24"
	routeGateway = "10.0.1.10"
)

// createNetwork creates a labelled network with one cloud subnet in the
// location's network zone.
func (s *session) createNetwork(ctx context.Context, step, what string) (*hcloud.Network, error) {
	_, ipRange, _ := net.ParseCIDR(networkRange)
	_, subnet, _ := net.ParseCIDR(subnetRange)
	s.keep = append(s.keep, networkRange, subnetRange)
	var n *hcloud.Network
	err := s.step(ctx, step, func(c *hcloud.Client) error {
		var err error
		n, _, err = c.Network.Create(ctx, hcloud.NetworkCreateOpts{
			Name: s.name(what), IPRange: ipRange, Labels: s.labels(),
			Subnets: []hcloud.NetworkSubnet{{Type: hcloud.NetworkSubnetTypeCloud, IPRange: subnet, NetworkZone: s.cat.location.NetworkZone}},
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", step, err)
	}
	return n, nil
}

// createServer creates a labelled server of the cheapest type, started,
// and waits for it. Its primary IPs come with it and carry no label; the
// session labels them where the target allows and remembers them, so the
// cleanup finds them even unassigned.
func (s *session) createServer(ctx context.Context, step, what string) (*hcloud.Server, error) {
	var res hcloud.ServerCreateResult
	err := s.step(ctx, step, func(c *hcloud.Client) error {
		var err error
		res, _, err = c.Server.Create(ctx, s.serverOpts(what))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", step, err)
	}
	s.trackPrimaryIPs(ctx, res.Server)
	return res.Server, nil
}

func (s *session) serverOpts(what string) hcloud.ServerCreateOpts {
	return hcloud.ServerCreateOpts{
		Name:       s.name(what),
		ServerType: &hcloud.ServerType{Name: s.cat.serverType.Name},
		Image:      &hcloud.Image{Name: Image},
		Location:   &hcloud.Location{Name: s.cat.location.Name},
		Labels:     s.labels(),
	}
}

// trackPrimaryIPs remembers a new server's primary IPs and labels them.
// A target that cannot label them (fakecloud has no PUT
// /primary_ips/{id}) leaves a note.
func (s *session) trackPrimaryIPs(ctx context.Context, srv *hcloud.Server) {
	labels := s.labels()
	for _, id := range []int64{srv.PublicNet.IPv4.ID, srv.PublicNet.IPv6.ID} {
		if id == 0 {
			continue
		}
		s.primaryIPs = append(s.primaryIPs, id)
		if _, _, err := s.quiet.PrimaryIP.Update(ctx, &hcloud.PrimaryIP{ID: id}, hcloud.PrimaryIPUpdateOpts{Labels: &labels}); err != nil {
			s.note(fmt.Sprintf("the servers' primary IPs could not be labelled (PUT /primary_ips/{id}: %s): the run's cleanup deletes them by ID; -sweep cannot find them", errorCode(err)))
		}
	}
}

// note records a remark of the run once.
func (s *session) note(text string) {
	for _, n := range s.notes {
		if n == text {
			return
		}
	}
	s.notes = append(s.notes, text)
}

// deleteNetwork is the step that deletes a scenario's network.
func (s *session) deleteNetwork(ctx context.Context, n *hcloud.Network) error {
	err := s.step(ctx, "delete the network", func(c *hcloud.Client) error {
		_, err := c.Network.Delete(ctx, n)
		return err
	})
	if err != nil {
		return fmt.Errorf("delete the network: %w", err)
	}
	return nil
}

// deleteServer is the step that deletes a scenario's server, with the
// primary IPs it auto-deletes.
func (s *session) deleteServer(ctx context.Context, srv *hcloud.Server) error {
	err := s.step(ctx, "delete the server", func(c *hcloud.Client) error {
		_, _, err := c.Server.DeleteWithResult(ctx, srv)
		return err
	})
	if err != nil {
		return fmt.Errorf("delete the server: %w", err)
	}
	return nil
}
