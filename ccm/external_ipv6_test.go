package ccm

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cloudproviderapi "k8s.io/cloud-provider/api"

	"github.com/hcloudlab/hcloud-ccm/ccm/robotclient"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// annotated is node with the external-ipv6 annotation.
func annotated(n *corev1.Node, ipv6 string) *corev1.Node {
	n.Annotations = map[string]string{AnnotationExternalIPv6: ipv6}
	return n
}

// TestExternalIPv6Cloud: the annotation takes the place of the derived
// IPv6 ExternalIP, the rest and the order unchanged; with ipv4 it is
// ignored with a Warning.
func TestExternalIPv6Cloud(t *testing.T) {
	c := newCloud(t, 2, fakecloud.Options{})
	i, rec := newInstances(t, c, AddressFamilyDualStack)
	s, _, _ := c.Client.Server.GetByName(t.Context(), "node-0001")
	md, err := i.InstanceMetadata(t.Context(), annotated(node("node-0001", ""), " 2001:db8:1234::5 "))
	if err != nil {
		t.Fatal(err)
	}
	want := []corev1.NodeAddress{
		{Type: corev1.NodeHostName, Address: "node-0001"},
		{Type: corev1.NodeExternalIP, Address: s.PublicNet.IPv4.IP.String()},
		{Type: corev1.NodeExternalIP, Address: "2001:db8:1234::5"},
		{Type: corev1.NodeInternalIP, Address: s.PrivateNet[0].IP.String()},
	}
	if diff := cmp.Diff(want, md.NodeAddresses); diff != "" {
		t.Errorf("dualstack addresses (-want +got):\n%s", diff)
	}
	i.cfg.AddressFamily = AddressFamilyIPv6
	md, _ = i.InstanceMetadata(t.Context(), annotated(node("node-0001", ""), "2001:db8:1234::5"))
	if diff := cmp.Diff([]corev1.NodeAddress{want[0], want[2], want[3]}, md.NodeAddresses); diff != "" {
		t.Errorf("ipv6 addresses (-want +got):\n%s", diff)
	}
	if len(rec.Events) != 0 {
		t.Errorf("events %d, want none where the annotation applies", len(rec.Events))
	}

	i.cfg.AddressFamily = AddressFamilyIPv4
	md, err = i.InstanceMetadata(t.Context(), annotated(node("node-0001", ""), "2001:db8:1234::5"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]corev1.NodeAddress{want[0], want[1], want[3]}, md.NodeAddresses); diff != "" {
		t.Errorf("ipv4 addresses (-want +got):\n%s", diff)
	}
	expectEvent(t, rec, "Warning", eventIgnoredExternalIPv6, AnnotationExternalIPv6+"=2001:db8:1234::5 is ignored",
		"HCLOUD_INSTANCES_ADDRESS_FAMILY is ipv4", "ipv6 or dualstack")
}

// TestExternalIPv6Invalid: a value that is no global unicast IPv6
// address fails the Node's metadata, without a request, with a Warning
// naming what is accepted; there is no fallback to the derived address.
func TestExternalIPv6Invalid(t *testing.T) {
	c := newCloud(t, 1, fakecloud.Options{})
	i, rec := newInstances(t, c, AddressFamilyDualStack)
	for _, v := range []string{"fe80::1", "fd00::1", "::1", "::", "ff02::1", "10.0.0.1", "::ffff:198.51.100.7", "2001:db8::5%eth0", "2001:db8::/64", "garbage"} {
		t.Run(v, func(t *testing.T) {
			before := c.Requests()
			md, err := i.InstanceMetadata(t.Context(), annotated(node("node-0000", ""), v))
			if err == nil || !strings.Contains(err.Error(), AnnotationExternalIPv6) {
				t.Errorf("metadata %+v, error %v; want an error naming the annotation", md, err)
			}
			if n := c.Requests() - before; n != 0 {
				t.Errorf("%d requests, want none", n)
			}
			expectEvent(t, rec, "Warning", eventInvalidExternalIPv6, v, "want a global unicast IPv6 address such as 2001:db8:1234::5")
		})
	}
	// Ignored with ipv4, a bad value is no error either.
	i.cfg.AddressFamily = AddressFamilyIPv4
	if _, err := i.InstanceMetadata(t.Context(), annotated(node("node-0000", ""), "garbage")); err != nil {
		t.Errorf("ipv4 with a bad value: %v, want it ignored", err)
	}
	expectEvent(t, rec, "Warning", eventIgnoredExternalIPv6)
}

// TestExternalIPv6Robot: a dedicated server's annotated address takes the
// place of its net's ::1, before the IPv4, and is the only IPv6 of one
// without a net. Without the annotation, a server without a net, or with
// one that is no address (a prefix), has no IPv6 ExternalIP (the official
// CCM gave it "1" before v1.37.0).
func TestExternalIPv6Robot(t *testing.T) {
	c := newCloud(t, 1, fakecloud.Options{})
	i, rec, _ := newRobotInstances(t, c, AddressFamilyDualStack)
	i.cfg.Robot.ForwardInternalIPs = false
	for _, tt := range []struct {
		name, node, ipv6 string
		want             []string
	}{
		{name: "net, annotated", node: "ded-1", ipv6: "2001:db8::7", want: []string{"ded-1", "2001:db8::7", "198.51.100.7"}},
		{name: "net", node: "ded-1", want: []string{"ded-1", "2a01:4f8:111:4221::1", "198.51.100.7"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := node(tt.node, "")
			if tt.ipv6 != "" {
				n = annotated(n, tt.ipv6)
			}
			md, err := i.InstanceMetadata(t.Context(), n)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, addressValues(md.NodeAddresses)); diff != "" {
				t.Errorf("addresses (-want +got):\n%s", diff)
			}
		})
	}
	if len(rec.Events) != 0 {
		t.Errorf("%d events, want none", len(rec.Events))
	}
	// fakecloud gives every dedicated server a net; the webservice may
	// send none ("") or a value that is no address.
	cfg := Config{AddressFamily: AddressFamilyDualStack}
	for _, net := range []string{"", "2001:db8::/64", "1", "198.51.100.0"} {
		d := &robotclient.Server{Name: "ded-3", IPv4: "198.51.100.9", IPv6Net: net}
		if got := addressValues(robotAddresses(d, node("ded-3", ""), cfg, netip.Addr{})); !cmp.Equal(got, []string{"ded-3", "198.51.100.9"}) {
			t.Errorf("IPv6 net %q: addresses %v, want the hostname and the IPv4 only", net, got)
		}
		annotated := netip.MustParseAddr("2001:db8::9")
		if got := addressValues(robotAddresses(d, node("ded-3", ""), cfg, annotated)); !cmp.Equal(got, []string{"ded-3", "2001:db8::9", "198.51.100.9"}) {
			t.Errorf("IPv6 net %q, annotated: addresses %v, want the annotated address before the IPv4", net, got)
		}
	}
}

func addressValues(addrs []corev1.NodeAddress) []string {
	var out []string
	for _, a := range addrs {
		out = append(out, a.Address)
	}
	return out
}

// TestNodeControllerTakesTheExternalIPv6: through the upstream cloud-node
// controller, a Node whose kubelet reports the annotated address as its
// --node-ip is initialised with it, which the derived address would fail.
func TestNodeControllerTakesTheExternalIPv6(t *testing.T) {
	c := newCluster(t, 1, fakecloud.Options{}, func(cfg *Config) { cfg.AddressFamily = AddressFamilyDualStack })
	createServers(t, c, 1, 1)
	c.runNodeController(t)
	c.start(t)
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-0001", Annotations: map[string]string{
		AnnotationExternalIPv6: "2001:db8:1234::5", cloudproviderapi.AnnotationAlphaProvidedIPAddr: "2001:db8:1234::5"}},
		Spec:   corev1.NodeSpec{Taints: []corev1.Taint{{Key: cloudproviderapi.TaintExternalCloudProvider, Value: "true", Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	if _, err := c.kube.CoreV1().Nodes().Create(c.ctx, n, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, 20*time.Second, "node-0001 initialised", func() bool { return initialised(c.node(t, "node-0001")) })
	fakecloudtest.Eventually(t, 20*time.Second, "the annotated address", func() bool {
		for _, a := range c.node(t, "node-0001").Status.Addresses {
			if a.Type == corev1.NodeExternalIP && a.Address == "2001:db8:1234::5" {
				return true
			}
		}
		return false
	})
}
