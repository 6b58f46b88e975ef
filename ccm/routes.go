package ccm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/inventory"
	"github.com/hcloudlab/hcloud-ccm/ccm/robotclient"
)

// eventRouteRefused is the reason of the event for a route the cloud
// cannot carry (an IPv6 pod CIDR, a dedicated server's node).
const eventRouteRefused = "RouteRefused"

// routes implements cloudprovider.Routes on the configured network. The
// network is read at most every InventoryMaxAge; this CCM's own changes
// are applied to the copy as they succeed.
type routes struct {
	client    *hcloud.Client
	inv       *inventory.Inventory
	networkID int64
	maxAge    time.Duration
	recorder  record.EventRecorder
	now       func() time.Time
	// robot, when set, tells dedicated servers' Nodes, which are not in
	// the network: their pod CIDRs get no route (skipped, told once).
	robot   *robotclient.Cache
	skipped sync.Map // node name → true, once told

	// nodes are the cluster's Nodes and clusterCIDRs its pod ranges: the
	// routes listed are theirs alone (routes_owner.go).
	nodes        nodeNames
	clusterCIDRs []*net.IPNet
	ours         map[string]string // gateway → the Node it was the server of, as this process saw it
	foreign      sync.Map          // routes left alone, once told

	// change serialises route changes: the API locks the network for each
	// one, so concurrent changes would only fail and retry.
	change  sync.Mutex
	backoff routeBackoff // real time, as the route controller's period
	mu      sync.Mutex
	network *hcloud.Network
	fetched time.Time
}

var _ cloudprovider.Routes = (*routes)(nil)

// current returns the network, fetching it when the copy is too old.
func (r *routes) current(ctx context.Context) (*hcloud.Network, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.network != nil && r.now().Sub(r.fetched) <= r.maxAge {
		return r.network, nil
	}
	n, _, err := r.client.Network.GetByID(ctx, r.networkID)
	if err != nil {
		return nil, fmt.Errorf("get network %d: %w", r.networkID, err)
	}
	if n == nil {
		return nil, fmt.Errorf("network %d does not exist", r.networkID)
	}
	r.network, r.fetched = n, r.now()
	return n, nil
}

// edit changes the cached network's routes after a successful action.
func (r *routes) edit(change func(rs []hcloud.NetworkRoute) []hcloud.NetworkRoute) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.network != nil {
		r.network.Routes = change(slices.Clone(r.network.Routes))
	}
}

// ListRoutes returns the routes of the network that are this cluster's
// (routes_owner.go): in its cluster CIDR, through one of its Nodes'
// servers, or through a gateway that was one and that no server holds
// now (a blackhole, after a fresh listing confirms it).
func (r *routes) ListRoutes(ctx context.Context, _ string) ([]*cloudprovider.Route, error) {
	operation("hcloud/ListRoutes")
	if r.nodes == nil || !r.nodes.Synced() {
		return nil, errors.New("the cluster's Nodes are not listed yet: no route is listed before they are, so none of another cluster's is taken for this one's")
	}
	n, err := r.current(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*cloudprovider.Route, 0, len(n.Routes))
	for _, rt := range n.Routes {
		if rt.Destination == nil || !r.inCluster(rt.Destination) {
			continue
		}
		gw, dest := rt.Gateway.String(), rt.Destination.String()
		o, err := r.owner(ctx, gw)
		if err != nil {
			return nil, err
		}
		if !o.ours() {
			r.leftAlone(dest, gw, o)
			continue
		}
		route := &cloudprovider.Route{Name: gw + "-" + dest, DestinationCIDR: dest, TargetNode: types.NodeName(o.node)}
		if o.dead() {
			route.Blackhole, route.TargetNode = true, ""
		}
		out = append(out, route)
	}
	return out, nil
}

// CreateRoute sends the pod CIDR to the node's IP in the network, replacing
// a route for the same CIDR through another gateway.
func (r *routes) CreateRoute(ctx context.Context, _ string, _ string, route *cloudprovider.Route) error {
	operation("hcloud/CreateRoute")
	node := string(route.TargetNode)
	_, dest, err := net.ParseCIDR(route.DestinationCIDR)
	if err != nil {
		return fmt.Errorf("create route %q for node %s: %w", route.DestinationCIDR, node, err)
	}
	if dest.IP.To4() == nil {
		msg := fmt.Sprintf("route %s for node %s refused: Hetzner Cloud networks do not carry IPv6; use an IPv4 cluster CIDR for routes or disable them (HCLOUD_NETWORK_ROUTES_ENABLED=false)", route.DestinationCIDR, node)
		r.event(node, msg)
		return errors.New(msg)
	}
	if r.robot != nil {
		// The listing is shared and cached: no request per reconcile.
		if d, found, err := r.robot.LookupName(ctx, node); err == nil && found {
			if _, told := r.skipped.LoadOrStore(node, true); !told {
				r.event(node, fmt.Sprintf("route %s for node %s skipped: the node is dedicated server %d (Robot), which is not in the cloud network; "+
					"its pods are reached only if the CNI carries their traffic (for example an overlay)", route.DestinationCIDR, node, d.Number))
			}
			return nil
		}
	}
	s, err := r.inv.ByServerName(ctx, node, inventory.Within(r.maxAge).For(subsystemRoutes))
	if err != nil {
		return fmt.Errorf("create route for node %s: %w", node, err)
	}
	if s == nil {
		return fmt.Errorf("create route for node %s: %w", node, errServerNotFound)
	}
	gw := networkIP(s, r.networkID)
	if gw == nil {
		return fmt.Errorf("create route for node %s: server %d is not attached to network %d", node, s.ID, r.networkID)
	}
	if err := r.backoff.check(dest.String(), time.Now()); err != nil {
		return fmt.Errorf("create route for node %s: %w", node, err)
	}
	r.change.Lock()
	defer r.change.Unlock()
	n, err := r.current(ctx)
	if err != nil {
		return err
	}
	for _, rt := range n.Routes {
		if rt.Destination.String() != dest.String() {
			continue
		}
		if rt.Gateway.Equal(gw) {
			r.remember(gw.String(), node)
			return nil
		}
		o, err := r.owner(ctx, rt.Gateway.String())
		if err != nil {
			return fmt.Errorf("create route for node %s: %w", node, err)
		}
		if !o.ours() && !o.dead() {
			msg := fmt.Sprintf("route %s for node %s refused: the network routes it through %s, server %s, which is no Node of this cluster "+
				"(another cluster in the same network?); that route is left alone: give this cluster another --cluster-cidr", dest, node, rt.Gateway, o.server)
			if _, told := r.foreign.LoadOrStore("refused "+dest.String()+" "+rt.Gateway.String(), true); !told {
				r.event(node, msg)
			}
			return errors.New(msg)
		}
		klog.InfoS("Replacing a route with a stale gateway", "destination", dest, "old", rt.Gateway, "new", gw, "node", node)
		if err := r.do(ctx, node, dest.String(), func() (*hcloud.Action, *hcloud.Response, error) {
			return r.client.Network.DeleteRoute(ctx, n, hcloud.NetworkDeleteRouteOpts{Route: rt})
		}); err != nil {
			return err
		}
		r.edit(func(rs []hcloud.NetworkRoute) []hcloud.NetworkRoute {
			return slices.DeleteFunc(rs, func(x hcloud.NetworkRoute) bool { return x.Destination.String() == dest.String() })
		})
	}
	add := hcloud.NetworkRoute{Destination: dest, Gateway: gw}
	if err := r.do(ctx, node, dest.String(), func() (*hcloud.Action, *hcloud.Response, error) {
		return r.client.Network.AddRoute(ctx, n, hcloud.NetworkAddRouteOpts{Route: add})
	}); err != nil {
		return err
	}
	r.edit(func(rs []hcloud.NetworkRoute) []hcloud.NetworkRoute { return append(rs, add) })
	r.remember(gw.String(), node)
	return nil
}

// DeleteRoute removes a route as ListRoutes named it (gateway-destination);
// one already gone is not an error.
func (r *routes) DeleteRoute(ctx context.Context, _ string, route *cloudprovider.Route) error {
	operation("hcloud/DeleteRoute")
	if err := r.backoff.check(route.DestinationCIDR, time.Now()); err != nil {
		return fmt.Errorf("delete route for node %s: %w", route.TargetNode, err)
	}
	r.change.Lock()
	defer r.change.Unlock()
	n, err := r.current(ctx)
	if err != nil {
		return err
	}
	// Only the route the controller saw: the same destination may already
	// lead through a new gateway, set by a concurrent CreateRoute.
	gw, _, _ := strings.Cut(route.Name, "-")
	i := slices.IndexFunc(n.Routes, func(rt hcloud.NetworkRoute) bool {
		return rt.Destination.String() == route.DestinationCIDR && (gw == "" || rt.Gateway.String() == gw)
	})
	if i < 0 {
		return nil
	}
	rt := n.Routes[i]
	if err := r.do(ctx, string(route.TargetNode), route.DestinationCIDR, func() (*hcloud.Action, *hcloud.Response, error) {
		return r.client.Network.DeleteRoute(ctx, n, hcloud.NetworkDeleteRouteOpts{Route: rt})
	}); err != nil {
		return err
	}
	r.edit(func(rs []hcloud.NetworkRoute) []hcloud.NetworkRoute {
		return slices.DeleteFunc(rs, func(x hcloud.NetworkRoute) bool {
			return x.Destination.String() == rt.Destination.String() && x.Gateway.Equal(rt.Gateway)
		})
	})
	r.forget(rt.Gateway.String())
	return nil
}

// do runs a network action for the route to dest and waits for it. A
// locked or changing network becomes a Kubernetes Conflict, which the
// route controller retries; a failure holds the route back (backoff).
func (r *routes) do(ctx context.Context, node, dest string, start func() (*hcloud.Action, *hcloud.Response, error)) error {
	a, _, err := start()
	if err == nil {
		err = r.client.Action.WaitFor(ctx, a)
	}
	if err != nil && ctx.Err() == nil {
		r.backoff.failed(dest, err, time.Now())
	} else if err == nil {
		r.backoff.succeeded(dest)
	}
	if hcloud.IsError(err, hcloud.ErrorCodeLocked) || hcloud.IsError(err, hcloud.ErrorCodeConflict) {
		// The network changed under us: read it afresh next time.
		r.mu.Lock()
		r.network = nil
		r.mu.Unlock()
		return apierrors.NewConflict(schema.GroupResource{Resource: "nodes"}, node, err)
	}
	if err != nil {
		r.mu.Lock()
		r.network = nil
		r.mu.Unlock()
		return fmt.Errorf("route for node %s: %w", node, err)
	}
	return nil
}

func (r *routes) event(node, msg string) {
	if r.recorder != nil {
		ref := &corev1.ObjectReference{Kind: "Node", Name: node, UID: types.UID(node)}
		r.recorder.Event(ref, corev1.EventTypeWarning, eventRouteRefused, msg)
	}
}
