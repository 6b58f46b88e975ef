package ccm

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cloudproviderapi "k8s.io/cloud-provider/api"

	"github.com/hcloudlab/hcloud-ccm/ccm/robotclient"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// registerWithNodeIP registers a Node as a kubelet started with
// --node-ip does: with the annotation from the start.
func (c *cluster) registerWithNodeIP(t *testing.T, name, nodeIP string) {
	t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{cloudproviderapi.AnnotationAlphaProvidedIPAddr: nodeIP}},
		Spec:   corev1.NodeSpec{Taints: []corev1.Taint{{Key: cloudproviderapi.TaintExternalCloudProvider, Value: "true", Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	if _, err := c.kube.CoreV1().Nodes().Create(c.ctx, n, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestOverlayNodeIPIsTheInternalIP(t *testing.T) {
	c := newCluster(t, 3, fakecloud.Options{}, func(c *Config) {
		c.InternalIPCIDRs = []netip.Prefix{netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("fd7a:115c:a1e0::/48")}
	})
	c.runNodeController(t)
	c.start(t)
	c.registerWithNodeIP(t, "node-0000", "100.64.0.5")
	c.registerWithNodeIP(t, "node-0001", "100.64.0.6,fd7a:115c:a1e0::6") // dual-stack overlay
	c.registerWithNodeIP(t, "node-0002", "192.168.7.7")                  // neither the server's nor in the CIDRs
	for _, n := range []string{"node-0000", "node-0001"} {
		fakecloudtest.Eventually(t, 20*time.Second, n+" initialised", func() bool { return initialised(c.node(t, n)) })
	}
	s := c.Server(t, "node-0000")
	want := []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "100.64.0.5"},
		{Type: corev1.NodeHostName, Address: "node-0000"}, {Type: corev1.NodeExternalIP, Address: s.PublicNet.IPv4.IP.String()}}
	fakecloudtest.Eventually(t, 20*time.Second, "node-0000's addresses", func() bool {
		return slices.Equal(c.node(t, "node-0000").Status.Addresses, want)
	})
	fakecloudtest.Eventually(t, 20*time.Second, "node-0001's overlay addresses", func() bool {
		a := c.node(t, "node-0001").Status.Addresses
		return len(a) > 2 && a[0].Address == "100.64.0.6" && a[1].Address == "fd7a:115c:a1e0::6" && a[0].Type == corev1.NodeInternalIP && a[1].Type == corev1.NodeInternalIP
	})

	// Outside the CIDRs: refused, as before, and the event says why.
	fakecloudtest.Eventually(t, 20*time.Second, "the refusal's event", func() bool {
		return c.hasEvent(t, corev1.EventTypeWarning, eventNodeIPMismatch, "node-0002")
	})
	if initialised(c.node(t, "node-0002")) {
		t.Error("node-0002, whose --node-ip is in no CIDR, was initialised")
	}
	if msg := c.eventMessage(t, eventNodeIPMismatch, "node-0002"); !strings.Contains(msg, "it is not in HCLOUD_INSTANCES_INTERNAL_IP_CIDRS (100.64.0.0/10, fd7a:115c:a1e0::/48)") {
		t.Errorf("event %q", msg)
	}
}

func TestOverlayNodeIPRefusedWithoutTheSetting(t *testing.T) {
	c := newCluster(t, 1, fakecloud.Options{})
	c.runNodeController(t)
	c.start(t)
	c.registerWithNodeIP(t, "node-0000", "100.64.0.5")
	fakecloudtest.Eventually(t, 20*time.Second, "the refusal's event", func() bool {
		return c.hasEvent(t, corev1.EventTypeWarning, eventNodeIPMismatch, "node-0000")
	})
	if initialised(c.node(t, "node-0000")) {
		t.Error("initialised with an address the server does not have and no CIDR names")
	}
	if msg := c.eventMessage(t, eventNodeIPMismatch, "node-0000"); !strings.Contains(msg, "name its range in HCLOUD_INSTANCES_INTERNAL_IP_CIDRS") {
		t.Errorf("event %q", msg)
	}
}

func TestInternalIPCIDRsSetting(t *testing.T) {
	for _, tc := range []struct{ value, want, err string }{
		{value: "100.64.0.0/10, fd7a:115c:a1e0::/48", want: "[100.64.0.0/10 fd7a:115c:a1e0::/48]"},
		{value: "10.8.0.1/24", want: "[10.8.0.0/24]"},
		{value: "100.64.0.0", err: "is not a CIDR"},
		{value: "0.0.0.0/0", err: "takes every address"},
	} {
		cfg, err := LoadConfig(func(k string) string {
			return map[string]string{"HCLOUD_TOKEN": strings.Repeat("a", 64), "HCLOUD_INSTANCES_INTERNAL_IP_CIDRS": tc.value}[k]
		}, nil)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.value, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.value, err)
		case fmtPrefixes(cfg.InternalIPCIDRs) != tc.want:
			t.Errorf("%s: %v, want %s", tc.value, cfg.InternalIPCIDRs, tc.want)
		}
	}
}

func fmtPrefixes(ps []netip.Prefix) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return "[" + strings.Join(s, " ") + "]"
}

func (c *cluster) eventMessage(t *testing.T, reason, object string) string {
	t.Helper()
	l, err := c.kube.CoreV1().Events("").List(c.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range l.Items {
		if e.Reason == reason && e.InvolvedObject.Name == object {
			return e.Message
		}
	}
	return ""
}

// TestOverlayNodeIPOfADedicatedServer: a dedicated server's Node takes an
// overlay --node-ip too, without ROBOT_FORWARD_INTERNAL_IPS, and once only
// when the kubelet also reports it.
func TestOverlayNodeIPOfADedicatedServer(t *testing.T) {
	d := &robotclient.Server{Number: 7, Name: "ded-7", IPv4: "198.51.100.7", DC: "FSN1-DC14", Product: "EX44"}
	cfg := Config{AddressFamily: AddressFamilyIPv4, InternalIPCIDRs: []netip.Prefix{netip.MustParsePrefix("100.64.0.0/10")}}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "ded-7", Annotations: map[string]string{cloudproviderapi.AnnotationAlphaProvidedIPAddr: "100.64.0.7"}},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "100.64.0.7"}}}}
	want := []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: "ded-7"}, {Type: corev1.NodeExternalIP, Address: "198.51.100.7"},
		{Type: corev1.NodeInternalIP, Address: "100.64.0.7"}}
	for _, forward := range []bool{false, true} {
		cfg.Robot.ForwardInternalIPs = forward
		if got := robotMetadata(d, node, cfg, netip.Addr{}).NodeAddresses; !slices.Equal(got, want) {
			t.Errorf("forward %v: %v, want %v", forward, got, want)
		}
	}
	cfg.InternalIPCIDRs, cfg.Robot.ForwardInternalIPs = nil, false
	if got := robotMetadata(d, node, cfg, netip.Addr{}).NodeAddresses; len(got) != 2 {
		t.Errorf("without the ranges: %v, want the hostname and the ExternalIP", got)
	}
}
