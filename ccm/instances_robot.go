package ccm

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/inventory"
	"github.com/hcloudlab/hcloud-ccm/ccm/providerid"
	"github.com/hcloudlab/hcloud-ccm/ccm/robotclient"
)

// eventInstanceLookupFailed is the reason of the event for a Node whose
// name is both a cloud server's and a dedicated server's, as the official
// CCM names it.
const eventInstanceLookupFailed = "InstanceLookupFailed"

// backing is what a node runs on: a cloud server or a dedicated one. Both
// nil means the API (or the webservice) confirmed there is none.
type backing struct {
	cloud     *hcloud.Server
	dedicated *robotclient.Server
}

func (b backing) gone() bool { return b.cloud == nil && b.dedicated == nil }

// resolve finds a node's server: by provider ID, whose prefix says which
// API to ask, or else by name in both. The Robot listing is asked first,
// as it is shared and cached: a dedicated server's name then costs no
// cloud request (a cloud miss lists the servers again), and a name the
// inventory also holds is ambiguous. A Robot failure never hides a cloud
// server found by name.
func (i *instances) resolve(ctx context.Context, node *corev1.Node, f inventory.Freshness) (backing, error) {
	pid := node.Spec.ProviderID
	if providerid.IsRobot(pid) {
		number, err := providerid.ToRobotNumber(pid)
		if err != nil {
			return backing{}, err
		}
		if err := i.robotReady(); err != nil {
			return backing{}, err
		}
		d, found, err := i.robot.Lookup(ctx, number)
		if err != nil || !found {
			return backing{}, err
		}
		return backing{dedicated: &d}, nil
	}
	if pid != "" || i.robot == nil {
		s, err := i.server(ctx, node, f)
		return backing{cloud: s}, err
	}
	d, found, rerr := i.robot.LookupName(ctx, node.Name)
	var s *hcloud.Server
	if found {
		s = i.inv.KnownName(node.Name)
	} else {
		var err error
		if s, err = i.server(ctx, node, f); err != nil {
			return backing{}, err
		}
	}
	switch {
	case s != nil && found:
		err := fmt.Errorf("node %s: both cloud server %d and dedicated server %d have its name; give the Node a provider ID (hcloud://%d or hrobot://%d)",
			node.Name, s.ID, d.Number, s.ID, d.Number)
		if i.recorder != nil {
			i.recorder.Event(node, corev1.EventTypeWarning, eventInstanceLookupFailed, err.Error())
		}
		return backing{}, err
	case s != nil:
		return backing{cloud: s}, nil
	case rerr != nil:
		return backing{}, rerr
	case found:
		return backing{dedicated: &d}, nil
	}
	return backing{}, nil
}

// robotReady says why dedicated servers cannot be asked about, if they
// cannot.
func (i *instances) robotReady() error {
	switch {
	case i.robot != nil:
		return nil
	case !i.cfg.Robot.Enabled:
		return fmt.Errorf("a dedicated (Robot) server, and ROBOT_ENABLED is not true")
	default:
		return errors.New("a dedicated (Robot) server, and ROBOT_USER and ROBOT_PASSWORD are not set: only load balancer targets work without them")
	}
}

// robotMetadata is what the node controller writes into a dedicated
// server's Node, as the official CCM writes it: the product as instance
// type, the data centre as zone (always) and its location as region.
func robotMetadata(d *robotclient.Server, node *corev1.Node, cfg Config, ipv6 netip.Addr) *cloudprovider.InstanceMetadata {
	zone := strings.ToLower(d.DC)
	region, _, _ := strings.Cut(zone, "-")
	return &cloudprovider.InstanceMetadata{
		ProviderID:       providerid.FromRobotNumber(d.Number),
		InstanceType:     instanceType(d.Product),
		NodeAddresses:    withOverlay(robotAddresses(d, node, cfg, ipv6), node, cfg),
		Zone:             zone,
		Region:           region,
		AdditionalLabels: map[string]string{labelProvidedBy: "robot"},
	}
}

var notInLabelValue = regexp.MustCompile(`[^a-zA-Z0-9_.-]`)

// instanceType makes a product name a label value: "DS 3000" is DS-3000.
func instanceType(product string) string {
	return notInLabelValue.ReplaceAllString(strings.ReplaceAll(product, " ", "-"), "")
}

// robotAddresses are a dedicated server's addresses in the official
// order: the hostname, the IPv6 (ipv6 when valid, else the ::1 of its
// net; none without a net written as an address) before the IPv4, as the
// address family allows; with ROBOT_FORWARD_INTERNAL_IPS the InternalIPs
// the kubelet reported, except ones of a family the cluster does not use
// or equal to an external address.
func robotAddresses(d *robotclient.Server, node *corev1.Node, cfg Config, ipv6 netip.Addr) []corev1.NodeAddress {
	addrs := []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: d.Name}}
	v4 := cfg.AddressFamily == AddressFamilyIPv4 || cfg.AddressFamily == AddressFamilyDualStack
	v6 := cfg.AddressFamily == AddressFamilyIPv6 || cfg.AddressFamily == AddressFamilyDualStack
	if v6 {
		net, _ := netip.ParseAddr(d.IPv6Net)
		if a, ok := ipv6ExternalIP(ipv6, net); ok {
			addrs = append(addrs, a)
		}
	}
	if v4 && d.IPv4 != "" {
		addrs = append(addrs, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: d.IPv4})
	}
	if !cfg.Robot.ForwardInternalIPs {
		return addrs
	}
	for _, a := range node.Status.Addresses {
		ip, err := netip.ParseAddr(a.Address)
		if a.Type != corev1.NodeInternalIP || err != nil || (ip.Is4() && !v4) || (ip.Is6() && !v6) ||
			addressIn(addrs, a.Address) {
			continue
		}
		addrs = append(addrs, a)
	}
	return addrs
}

func addressIn(addrs []corev1.NodeAddress, ip string) bool {
	for _, a := range addrs {
		if a.Address == ip {
			return true
		}
	}
	return false
}
