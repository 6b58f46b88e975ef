package ccm

import (
	"context"
	"fmt"
	"net"
	"strings"

	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/klog/v2"
)

// Routes in a network carry no owner, and two clusters may share a
// network (official CCM issue #211). The routes this CCM lists, and so
// the route controller replaces and deletes, are only those it can vouch
// for: a destination inside its cluster CIDR, and a gateway that is one
// of its Nodes' servers, or that was one while this process watched (a
// deleted Node's route, or one whose server is gone). Another cluster's
// routes, and routes to a gateway nobody holds that it never saw as its
// own, are left alone; ccm doctor reports the latter.

// nodeNames tells the cluster's Nodes by name.
type nodeNames interface {
	HasNode(name string) bool
	Synced() bool
}

// informerNodes are the Nodes of a shared informer: the controller
// manager's own, so no further watch.
type informerNodes struct{ inf coreinformers.NodeInformer }

func (n informerNodes) HasNode(name string) bool {
	_, err := n.inf.Lister().Get(name)
	return err == nil
}

func (n informerNodes) Synced() bool { return n.inf.Informer().HasSynced() }

// UseNodes gives the routes and the server label sync the cluster's
// Nodes, from the controller manager's shared informers: without them, no
// route is listed and no server label reaches a Node.
func (c *Cloud) UseNodes(inf coreinformers.NodeInformer) {
	if c.labels != nil {
		c.labels.useNodes(inf)
	}
	if c.routes != nil {
		inf.Informer() // registered before the factory starts
		c.routes.nodes = informerNodes{inf}
	}
}

// SetClusterCIDRs gives the routes the cluster CIDRs (kube-controller-
// manager's --cluster-cidr, comma-separated): routes to elsewhere are
// never listed. Empty leaves every destination in.
func (c *Cloud) SetClusterCIDRs(cidrs string) error {
	if c.routes == nil || strings.TrimSpace(cidrs) == "" {
		return nil
	}
	var nets []*net.IPNet
	for s := range strings.SplitSeq(cidrs, ",") {
		_, n, err := net.ParseCIDR(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("--cluster-cidr %q: %w", cidrs, err)
		}
		nets = append(nets, n)
	}
	c.routes.clusterCIDRs = nets
	return nil
}

// inCluster reports whether a destination lies inside a cluster CIDR.
func (r *routes) inCluster(dest *net.IPNet) bool {
	if len(r.clusterCIDRs) == 0 {
		return true
	}
	ones, _ := dest.Mask.Size()
	for _, c := range r.clusterCIDRs {
		if within, _ := c.Mask.Size(); c.Contains(dest.IP) && ones >= within {
			return true
		}
	}
	return false
}

// gatewayOwner is who a route's gateway leads to: node, the Node it is
// (or was, for this process) the server of, "" for none of this
// cluster's; server, the server holding it, "" when none does.
type gatewayOwner struct{ node, server string }

func (o gatewayOwner) ours() bool { return o.node != "" }
func (o gatewayOwner) dead() bool { return o.server == "" }

// owner finds who a gateway leads to.
func (r *routes) owner(ctx context.Context, gw string) (gatewayOwner, error) {
	s, err := r.inv.ByPrivateIP(ctx, r.networkID, gw, r.maxAge)
	if err != nil {
		return gatewayOwner{}, err
	}
	var o gatewayOwner
	if s != nil {
		o.server = s.Name
		if r.nodes.HasNode(s.Name) {
			r.remember(gw, s.Name)
			o.node = s.Name
			return o, nil
		}
	}
	o.node, _ = r.remembered(gw)
	return o, nil
}

// remember records a gateway as a Node's.
func (r *routes) remember(gw, node string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ours == nil {
		r.ours = map[string]string{}
	}
	r.ours[gw] = node
}

func (r *routes) remembered(gw string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	node, ok := r.ours[gw]
	return node, ok
}

// forget drops a gateway no route leads through any more.
func (r *routes) forget(gw string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.network != nil {
		for _, rt := range r.network.Routes {
			if rt.Gateway.String() == gw {
				return
			}
		}
	}
	delete(r.ours, gw)
}

// leftAlone logs, once a process, a route this CCM does not own.
func (r *routes) leftAlone(dest, gw string, o gatewayOwner) {
	if _, told := r.foreign.LoadOrStore(dest+" "+gw, true); told {
		return
	}
	why := "no server holds its gateway, and this process never saw it as a Node's (ccm doctor lists it)"
	if !o.dead() {
		why = "its gateway is server " + o.server + ", which is no Node of this cluster"
	}
	klog.InfoS("Leaving a route alone: it is not this cluster's", "destination", dest, "gateway", gw, "reason", why)
}
