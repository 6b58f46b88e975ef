package ccm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/inventory"
	"github.com/hcloudlab/hcloud-ccm/ccm/providerid"
	"github.com/hcloudlab/hcloud-ccm/ccm/robotclient"
)

const (
	// labelProvidedBy marks nodes backed by a cloud server, as the official CCM does.
	labelProvidedBy = "instance.hetzner.cloud/provided-by"
	// eventNodeIPMismatch is the reason of the event for a kubelet --node-ip
	// that is not among the server's addresses.
	eventNodeIPMismatch = "NodeIPNotOfServer"
	// eventNotInNetwork is the reason of the event for a node whose server
	// is not attached to HCLOUD_NETWORK.
	eventNotInNetwork = "ServerNotInNetwork"
	// eventUnmatchedNodeKept is the reason of the event for a NotReady Node
	// with no provider ID and no server of its name, which is not deleted.
	eventUnmatchedNodeKept = "UnmatchedNodeKept"
)

// errServerNotFound is returned for metadata of a node whose server the API
// confirmed does not exist.
var errServerNotFound = errors.New("no server for the node")

// instances implements cloudprovider.InstancesV2 from the shared inventory,
// and for dedicated servers from the Robot webservice's cache.
type instances struct {
	inv      *inventory.Inventory
	robot    *robotclient.Cache // nil without Robot credentials
	cfg      Config
	recorder record.EventRecorder
}

var _ cloudprovider.InstancesV2 = (*instances)(nil)

// server finds a node's server by provider ID, else by node name, as
// fresh as f asks. nil means the API confirmed there is none.
func (i *instances) server(ctx context.Context, node *corev1.Node, f inventory.Freshness) (*hcloud.Server, error) {
	if node.Spec.ProviderID != "" {
		id, err := providerid.ToServerID(node.Spec.ProviderID)
		if err != nil {
			return nil, err
		}
		return i.inv.ByServerID(ctx, id, f)
	}
	return i.inv.ByServerName(ctx, node.Name, f)
}

// lifecycle is the freshness of the node lifecycle controller's questions,
// asked every monitor period while a node is NotReady: a twelfth of
// HCLOUD_INVENTORY_LIFECYCLE_MAX_AGE for the first HCLOUD_INVENTORY_MAX_AGE
// after the node turned NotReady, then backing off from the one to the
// other (inventory.Freshness).
func (i *instances) lifecycle(node *corev1.Node) inventory.Freshness {
	return inventory.Repeated(i.cfg.LifecycleMaxAge, i.cfg.InventoryMaxAge, notReadySince(node)).For(subsystemInstances)
}

// notReadySince is when the node's Ready condition last changed, if it is
// not True now; zero otherwise.
func notReadySince(node *corev1.Node) time.Time {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status != corev1.ConditionTrue {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

// InstanceExists answers false only when the API confirms the server is
// gone; every failure is an error, so an outage never deletes a Node.
func (i *instances) InstanceExists(ctx context.Context, node *corev1.Node) (bool, error) {
	operation("hcloud/instancesv2.InstanceExists")
	b, err := i.resolve(ctx, node, i.lifecycle(node))
	if err != nil {
		return false, fmt.Errorf("instance exists for node %s: %w", node.Name, err)
	}
	if b.gone() && node.Spec.ProviderID == "" && !i.cfg.DeleteUnmatchedNodes {
		// Never ours by provider ID, and no server has its name: the CCM
		// cannot vouch that it is one of the project's, so it is kept.
		klog.V(2).InfoS("Node kept: no provider ID and no server of its name", "node", klog.KObj(node))
		if i.recorder != nil {
			i.recorder.Event(node, corev1.EventTypeWarning, eventUnmatchedNodeKept, "no provider ID and no server of the project has this Node's name: "+
				"it is kept, not deleted, since it may be no server of this project (an edge node, another provider's); "+
				"HCLOUD_INSTANCES_DELETE_UNMATCHED_NODES=true deletes such Nodes, as the official CCM does")
		}
		return true, nil
	}
	if b.gone() {
		klog.InfoS("Server confirmed gone", "node", klog.KObj(node), "providerID", node.Spec.ProviderID)
	}
	return !b.gone(), nil
}

// InstanceShutdown reports a server that is off.
func (i *instances) InstanceShutdown(ctx context.Context, node *corev1.Node) (bool, error) {
	operation("hcloud/instancesv2.InstanceShutdown")
	b, err := i.resolve(ctx, node, i.lifecycle(node))
	if err != nil {
		return false, fmt.Errorf("instance shutdown for node %s: %w", node.Name, err)
	}
	switch {
	case b.dedicated != nil:
		off, err := i.robot.PoweredOff(ctx, b.dedicated.Number)
		if err != nil {
			return false, fmt.Errorf("instance shutdown for node %s: %w", node.Name, err)
		}
		return off, nil
	case b.cloud == nil:
		return false, fmt.Errorf("instance shutdown for node %s: %w", node.Name, errServerNotFound)
	}
	return b.cloud.Status == hcloud.ServerStatusOff, nil
}

// InstanceMetadata returns what the node controller writes into the Node.
func (i *instances) InstanceMetadata(ctx context.Context, node *corev1.Node) (*cloudprovider.InstanceMetadata, error) {
	operation("hcloud/instancesv2.InstanceMetadata")
	ipv6, err := i.nodeExternalIPv6(node)
	if err != nil {
		return nil, fmt.Errorf("instance metadata for node %s: %w", node.Name, err)
	}
	// Initialising a node may use the budget's reserve.
	b, err := i.resolve(ctx, node, inventory.Within(i.cfg.InventoryMaxAge).For(subsystemInstances).Urgently())
	if err != nil {
		i.explainUninitialized(ctx, node, err)
		return nil, fmt.Errorf("instance metadata for node %s: %w", node.Name, err)
	}
	if b.gone() {
		i.explainUninitialized(ctx, node, nil)
		return nil, fmt.Errorf("instance metadata for node %s: %w", node.Name, errServerNotFound)
	}
	if b.dedicated != nil {
		md := robotMetadata(b.dedicated, node, i.cfg, ipv6)
		i.checkNodeIP(node, md.NodeAddresses)
		return md, nil
	}
	s := b.cloud
	md := &cloudprovider.InstanceMetadata{
		ProviderID:       providerid.FromServerID(s.ID),
		InstanceType:     s.ServerType.Name,
		NodeAddresses:    withOverlay(nodeAddresses(s, i.cfg, ipv6), node, i.cfg),
		AdditionalLabels: map[string]string{labelProvidedBy: "cloud"},
	}
	if s.Location != nil {
		md.Region = s.Location.Name
		if i.cfg.ZoneLabelEnabled {
			md.Zone = legacyDatacenter(s.Location.Name)
		}
	}
	i.checkNodeIP(node, md.NodeAddresses)
	i.checkNetwork(node, s)
	return md, nil
}

// NodeAddresses lists a server's addresses in the official order: the
// hostname, the public IPv4 and IPv6 (the ::1 of its /64, or the Node's
// AnnotationExternalIPv6) as the address family allows, and the IP in the
// configured network.
//
// NodeAddresses is the same for ccm doctor, which checks kubelets'
// --node-ip against it (cfg.NetworkID resolved); an annotation the CCM
// refuses is left out. A --node-ip in HCLOUD_INSTANCES_INTERNAL_IP_CIDRS
// comes last, as an InternalIP (node_ip_overlay.go).
func NodeAddresses(s *hcloud.Server, node *corev1.Node, cfg Config) []corev1.NodeAddress {
	ipv6, _, _ := externalIPv6(node, cfg.AddressFamily)
	return withOverlay(nodeAddresses(s, cfg, ipv6), node, cfg)
}

// nodeAddresses are a server's addresses, with ipv6 (when valid) as its
// IPv6 ExternalIP.
func nodeAddresses(s *hcloud.Server, cfg Config, ipv6 netip.Addr) []corev1.NodeAddress {
	addrs := []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: s.Name}}
	v4 := cfg.AddressFamily == AddressFamilyIPv4 || cfg.AddressFamily == AddressFamilyDualStack
	v6 := cfg.AddressFamily == AddressFamilyIPv6 || cfg.AddressFamily == AddressFamilyDualStack
	if v4 && !s.PublicNet.IPv4.IsUnspecified() && s.PublicNet.IPv4.IP != nil {
		addrs = append(addrs, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: s.PublicNet.IPv4.IP.String()})
	}
	if v6 {
		var net netip.Addr
		if !s.PublicNet.IPv6.IsUnspecified() && s.PublicNet.IPv6.IP != nil {
			net, _ = netip.AddrFromSlice(s.PublicNet.IPv6.IP)
		}
		if a, ok := ipv6ExternalIP(ipv6, net); ok {
			addrs = append(addrs, a)
		}
	}
	if ip := networkIP(s, cfg.NetworkID); ip != nil {
		addrs = append(addrs, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: ip.String()})
	}
	return addrs
}

// networkIP is the server's IP in the network, or nil when it is not
// attached (or networkID is 0, no network).
func networkIP(s *hcloud.Server, networkID int64) net.IP {
	for _, pn := range s.PrivateNet {
		if networkID != 0 && pn.Network != nil && pn.Network.ID == networkID {
			return pn.IP
		}
	}
	return nil
}

// checkNodeIP warns when the kubelet's --node-ip (its annotation) is not
// one of the server's addresses: the node would then be reached at an
// address the cloud does not route to it.
func (i *instances) checkNodeIP(node *corev1.Node, addrs []corev1.NodeAddress) {
	want := node.Annotations["alpha.kubernetes.io/provided-node-ip"]
	if want == "" || i.recorder == nil {
		return
	}
	for ip := range strings.SplitSeq(want, ",") {
		if ip = strings.TrimSpace(ip); ip != "" && !slices.ContainsFunc(addrs, func(a corev1.NodeAddress) bool { return a.Address == ip }) {
			i.recorder.Eventf(node, corev1.EventTypeWarning, eventNodeIPMismatch,
				"kubelet --node-ip %s is not an address of server %s (%v); check --node-ip and HCLOUD_NETWORK / HCLOUD_INSTANCES_ADDRESS_FAMILY%s",
				ip, node.Name, addressList(addrs), nodeIPAdvice(i.cfg))
		}
	}
}

// checkNetwork warns when HCLOUD_NETWORK is set and the node's server is
// not attached to it: the node gets no InternalIP and no route reaches it.
func (i *instances) checkNetwork(node *corev1.Node, s *hcloud.Server) {
	if i.cfg.NetworkID == 0 || i.recorder == nil {
		return
	}
	if networkIP(s, i.cfg.NetworkID) != nil {
		return
	}
	i.recorder.Eventf(node, corev1.EventTypeWarning, eventNotInNetwork,
		"server %s (%d) is not attached to HCLOUD_NETWORK %s (ID %d): the node has no InternalIP and pod routes cannot reach it; attach the server or unset HCLOUD_NETWORK",
		s.Name, s.ID, i.cfg.Network, i.cfg.NetworkID)
}

func addressList(addrs []corev1.NodeAddress) []string {
	out := make([]string, 0, len(addrs))
	for _, a := range addrs {
		if a.Type != corev1.NodeHostName {
			out = append(out, a.Address)
		}
	}
	return out
}

// legacyDatacenters maps a location to the datacenter name the official CCM
// used as the zone before servers stopped naming their datacenter.
var legacyDatacenters = map[string]string{
	"fsn1": "fsn1-dc14", "nbg1": "nbg1-dc3", "hel1": "hel1-dc2", "ash": "ash-dc1", "hil": "hil-dc1", "sin": "sin-dc1",
}

// legacyDatacenter returns the zone for a location; an unknown location is
// its own zone.
func legacyDatacenter(location string) string {
	if dc, ok := legacyDatacenters[location]; ok {
		return dc
	}
	return location
}
