package parity

import (
	"context"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// loadBalancerLife is a load balancer's life: created with a service and
// a server target, a label selector target added and removed, the
// service changed, deleted (then its server).
func loadBalancerLife(ctx context.Context, s *session) error {
	srv, err := s.createServer(ctx, "create a server to target", "lb-target")
	if err != nil {
		return err
	}
	var lb *hcloud.LoadBalancer
	selector := s.runSelector()
	return s.sequence(ctx, []namedStep{{
		name: "create a load balancer with a service and a server target",
		do: func(c *hcloud.Client) error {
			res, _, err := c.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{
				Name: s.name("lb"), LoadBalancerType: &hcloud.LoadBalancerType{Name: s.cat.lbType.Name},
				Location: &hcloud.Location{Name: s.cat.location.Name}, Labels: s.labels(),
				Services: []hcloud.LoadBalancerCreateOptsService{{
					Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: hcloud.Ptr(80), DestinationPort: hcloud.Ptr(8080),
				}},
				Targets: []hcloud.LoadBalancerCreateOptsTarget{{
					Type: hcloud.LoadBalancerTargetTypeServer, Server: hcloud.LoadBalancerCreateOptsTargetServer{Server: srv},
				}},
			})
			lb = res.LoadBalancer
			return err
		},
	}, {
		name: "add a label selector target",
		do: func(c *hcloud.Client) error {
			_, _, err := c.LoadBalancer.AddLabelSelectorTarget(ctx, lb, hcloud.LoadBalancerAddLabelSelectorTargetOpts{Selector: selector})
			return err
		},
	}, {
		name: "remove the label selector target",
		do: func(c *hcloud.Client) error {
			_, _, err := c.LoadBalancer.RemoveLabelSelectorTarget(ctx, lb, selector)
			return err
		},
	}, {
		name: "change the service's destination port",
		do: func(c *hcloud.Client) error {
			_, _, err := c.LoadBalancer.UpdateService(ctx, lb, 80, hcloud.LoadBalancerUpdateServiceOpts{DestinationPort: hcloud.Ptr(8081)})
			return err
		},
	}, {
		name: "read the load balancer",
		do: func(c *hcloud.Client) error {
			_, _, err := c.LoadBalancer.GetByID(ctx, lb.ID)
			return err
		},
	}, {
		name: "delete the load balancer",
		do: func(c *hcloud.Client) error {
			_, _, err := c.LoadBalancer.DeleteWithResult(ctx, lb)
			return err
		},
	}, {
		name: "delete the server",
		do: func(c *hcloud.Client) error {
			_, _, err := c.Server.DeleteWithResult(ctx, srv)
			return err
		},
	}})
}
