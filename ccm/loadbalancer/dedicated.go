package loadbalancer

import (
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
)

// eventInternalIPNotConfigured is the reason of the event for a dedicated
// server's Node that should be reached on its private IP but has none, as
// the official CCM names it.
const eventInternalIPNotConfigured = "InternalIPNotConfigured"

// dedicatedTarget is the ip target of a dedicated (Robot) server's Node,
// from the addresses the CCM wrote into it, so no target costs a request
// to the Robot webservice: its public IPv4, or with use-private-ip its
// first InternalIP (the vSwitch address), falling back to the public one
// with an event, as the official CCM does. A Node without either yet is
// left out until it is initialised.
func dedicatedTarget(svc *corev1.Service, node *corev1.Node, private bool) (lbTarget, *lbNotice) {
	public, internal := "", ""
	for _, a := range node.Status.Addresses {
		ip, err := netip.ParseAddr(a.Address)
		if err != nil || !ip.Is4() {
			continue
		}
		switch {
		case a.Type == corev1.NodeExternalIP && public == "":
			public = a.Address
		case a.Type == corev1.NodeInternalIP && internal == "":
			internal = a.Address
		}
	}
	switch {
	case private && internal != "":
		return lbTarget{IP: internal}, nil
	case public == "":
		return lbTarget{}, &lbNotice{Node: node, Reason: eventNodeSkipped, Message: fmt.Sprintf(
			"not a target of the load balancer of Service %s/%s yet: the dedicated server's Node has no IPv4 address", svc.Namespace, svc.Name)}
	case private:
		return lbTarget{IP: public}, &lbNotice{Node: node, Reason: eventInternalIPNotConfigured, Message: fmt.Sprintf(
			"the dedicated server's Node has no InternalIP, so the load balancer of Service %s/%s reaches it on its public IP %s; "+
				"connect it to the network with a vSwitch and set ROBOT_FORWARD_INTERNAL_IPS", svc.Namespace, svc.Name, public)}
	}
	return lbTarget{IP: public}, nil
}
