package parity

import (
	"context"
	"fmt"
	"net"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// routes adds a route to a network and deletes it, as the CCM's route
// controller does, with check 4 for both actions: does either appear
// under /servers/actions?
func routes(ctx context.Context, s *session) error {
	network, err := s.createNetwork(ctx, "create a network", "routes")
	if err != nil {
		return err
	}
	_, dest, _ := net.ParseCIDR(routeDest)
	route := hcloud.NetworkRoute{Destination: dest, Gateway: net.ParseIP(routeGateway)}
	s.keep = append(s.keep, routeDest, routeGateway)
	var added, deleted *hcloud.Action
	read := func(c *hcloud.Client) error {
		_, _, err := c.Network.GetByID(ctx, network.ID)
		return err
	}
	err = s.sequence(ctx, []namedStep{{
		name: "add a route",
		do: func(c *hcloud.Client) error {
			var err error
			added, _, err = c.Network.AddRoute(ctx, network, hcloud.NetworkAddRouteOpts{Route: route})
			return err
		},
	}, {name: "read the network", do: read}, {
		name: "delete the route",
		do: func(c *hcloud.Client) error {
			var err error
			deleted, _, err = c.Network.DeleteRoute(ctx, network, hcloud.NetworkDeleteRouteOpts{Route: route})
			return err
		},
	}, {name: "read the network again", do: read}})
	if err != nil {
		return err
	}
	for _, c := range []struct {
		command string
		a       *hcloud.Action
	}{{"add_route", added}, {"delete_route", deleted}} {
		claim := fmt.Sprintf("%s (a network's action) is listed in GET /servers/actions", c.command)
		if err := s.checkListed(ctx, "4/"+c.command, claim, "servers", c.a.ID); err != nil {
			return err
		}
	}
	return s.deleteNetwork(ctx, network)
}
