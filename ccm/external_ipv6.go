package ccm

import (
	"fmt"
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// AnnotationExternalIPv6 is the Node annotation that gives the Node's
// IPv6 ExternalIP, as the official CCM reads it since v1.37.0: an IPv6
// address, global unicast; default none, the ::1 of the server's /64.
// nodeAnnotationDocs says the rest.
const AnnotationExternalIPv6 = "instance.hetzner.cloud/external-ipv6"

// nodeAnnotationDocs describe the Node annotations the CCM reads: the
// Node annotations of docs/reference/annotations.md are generated from
// them.
var nodeAnnotationDocs = []struct{ Key, Value, Default, Example, What string }{{
	Key:     AnnotationExternalIPv6,
	Value:   "an IPv6 address, global unicast (not link-local, unique local, loopback or IPv4)",
	Default: "none: the ::1 of the server's /64 (of a dedicated server's IPv6 net; none without one)",
	Example: "2001:db8:1234::5",
	What: "the Node's IPv6 ExternalIP, in place of the derived one and in its place among the addresses; for a dedicated server without an IPv6 net, " +
		"its only one. It applies with `HCLOUD_INSTANCES_ADDRESS_FAMILY` `ipv6` or `dualstack`; with `ipv4` it is ignored, with a Warning event " +
		"`IgnoredExternalIPv6`. A value it does not take is a Warning event `InvalidExternalIPv6`, and the Node's metadata an error: " +
		"a new Node is not initialised, an initialised one keeps its addresses. A change applies at the Node's next status update",
}, {
	Key:     AnnotationManagedLabels,
	Value:   "label keys, comma-separated; written by the CCM",
	Default: "none",
	Example: "hcloud/node-group,label.hcloud.hetzner.cloud/env",
	What: "the Node labels the CCM wrote from the server's labels (`HCLOUD_INSTANCES_LABELS_ENABLED`, `HCLOUD_INSTANCES_LABELS_VERBATIM`): " +
		"the only ones it changes or removes. Do not set it; removing a key from it hands that label over to you ([server labels](../guides/server-labels.md))",
}, {
	Key:     AnnotationManagedTaints,
	Value:   "`key:Effect`, comma-separated; written by the CCM",
	Default: "none",
	Example: "taint.hcloud.hetzner.cloud/gpu:NoSchedule",
	What:    "the taints the CCM wrote from the server's labels (`HCLOUD_INSTANCES_TAINTS_ENABLED`): the only ones it changes or removes",
}}

// Event reasons of the annotation, the official CCM's.
const (
	eventIgnoredExternalIPv6 = "IgnoredExternalIPv6"
	eventInvalidExternalIPv6 = "InvalidExternalIPv6"
)

// externalIPv6 reads the Node's AnnotationExternalIPv6: the address when
// it applies, the zero Addr when it is unset or the address family has no
// IPv6 (ignored), an error for a value that is no global unicast IPv6
// address.
func externalIPv6(node *corev1.Node, family string) (addr netip.Addr, ignored bool, err error) {
	v, ok := node.Annotations[AnnotationExternalIPv6]
	if v = strings.TrimSpace(v); !ok || v == "" {
		return netip.Addr{}, false, nil
	}
	if family != AddressFamilyIPv6 && family != AddressFamilyDualStack {
		return netip.Addr{}, true, nil
	}
	a, perr := netip.ParseAddr(v)
	if perr != nil || !a.Is6() || a.Is4In6() || a.Zone() != "" || !a.IsGlobalUnicast() || a.IsPrivate() {
		return netip.Addr{}, false, fmt.Errorf("annotation %s=%q is not valid: want a global unicast IPv6 address such as 2001:db8:1234::5 "+
			"(not link-local, unique local, loopback or IPv4)", AnnotationExternalIPv6, v)
	}
	return a, false, nil
}

// nodeExternalIPv6 is externalIPv6 with its Warning events on the Node.
func (i *instances) nodeExternalIPv6(node *corev1.Node) (netip.Addr, error) {
	addr, ignored, err := externalIPv6(node, i.cfg.AddressFamily)
	switch {
	case err != nil && i.recorder != nil:
		i.recorder.Event(node, corev1.EventTypeWarning, eventInvalidExternalIPv6, err.Error()+"; the Node's addresses are not set until it is fixed")
	case ignored && i.recorder != nil:
		i.recorder.Eventf(node, corev1.EventTypeWarning, eventIgnoredExternalIPv6,
			"annotation %s=%s is ignored: HCLOUD_INSTANCES_ADDRESS_FAMILY is %s; set it to ipv6 or dualstack for the address to apply, or remove the annotation",
			AnnotationExternalIPv6, strings.TrimSpace(node.Annotations[AnnotationExternalIPv6]), i.cfg.AddressFamily)
	}
	return addr, err
}

// ipv6ExternalIP is the IPv6 ExternalIP of a Node: the annotated one when
// given, else the ::1 of the /64 net (none when net is not valid).
func ipv6ExternalIP(annotated, net netip.Addr) (corev1.NodeAddress, bool) {
	if annotated.IsValid() {
		return corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: annotated.String()}, true
	}
	if !net.Is6() || net.Is4In6() {
		return corev1.NodeAddress{}, false
	}
	b := net.As16()
	b[15] |= 1
	return corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: netip.AddrFrom16(b).String()}, true
}
