package loadbalancer

import (
	"slices"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// dedicatedNode is a dedicated server's Node as the CCM initialises it.
func dedicatedNode(name, pid string, addrs ...corev1.NodeAddress) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: pid},
		Status: corev1.NodeStatus{Addresses: addrs}}
}

func ipTargets(lb *hcloud.LoadBalancer) []string {
	var ips []string
	for _, tg := range lb.Targets {
		if tg.Type == hcloud.LoadBalancerTargetTypeIP {
			ips = append(ips, tg.IP.IP)
		}
	}
	slices.Sort(ips)
	return ips
}

// With Robot, a dedicated server's Node is an ip target on its public
// IPv4 beside the cloud servers' server targets, added and removed as the
// Node comes and goes; each change costs one request.
// Without Robot it is left out with an event, and ip targets go.
func TestDedicatedNodesAreIPTargets(t *testing.T) {
	c := newLBCluster(t, 2, fakecloud.Options{})
	c.lbs.robot = true
	ext := func(ip string) corev1.NodeAddress {
		return corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: ip}
	}
	ded1 := dedicatedNode("ded-1", "hrobot://321", corev1.NodeAddress{Type: corev1.NodeHostName, Address: "ded-1"},
		ext("2a01:4f8:111:4221::1"), ext("198.51.100.7"))
	ded2 := dedicatedNode("ded-2", "hcloud://bm-322", ext("198.51.100.8"))
	pending := dedicatedNode("ded-3", "hrobot://323") // not initialised: no address yet
	svc := lbService("web", []int32{80})
	nodes := append(slices.Clone(c.nodes), ded1, ded2, pending)
	c.ensure(t, svc, nodes)
	lb := c.LoadBalancerOf(t, svc)
	if got := ipTargets(lb); !slices.Equal(got, []string{"198.51.100.7", "198.51.100.8"}) {
		t.Fatalf("ip targets %v", got)
	}
	if got := targetIDs(lb); !slices.Equal(got, serverIDs(c.nodes)) {
		t.Errorf("server targets %v, want %v", got, serverIDs(c.nodes))
	}
	if !c.hasEvent(t, corev1.EventTypeWarning, eventNodeSkipped, "ded-3") {
		t.Error("no event for the dedicated Node without an address")
	}
	if n := c.update(t, svc, nodes); n != 0 {
		t.Errorf("a sync with nothing to change sent %d requests", n)
	}
	if n := c.update(t, svc, append(slices.Clone(c.nodes), ded1)); n != 1 {
		t.Errorf("removing one ip target sent %d requests, want 1 (its action ends at once here)", n)
	}
	if got := ipTargets(c.LoadBalancerOf(t, svc)); !slices.Equal(got, []string{"198.51.100.7"}) {
		t.Errorf("ip targets %v after ded-2 left", got)
	}
	c.lbs.robot = false
	c.update(t, svc, nodes)
	if got := ipTargets(c.LoadBalancerOf(t, svc)); len(got) != 0 {
		t.Errorf("ip targets %v with Robot off", got)
	}
	if !c.hasEvent(t, corev1.EventTypeWarning, eventNodeSkipped, "ded-1") {
		t.Error("no event for the dedicated Node left out with Robot off")
	}
}

// With use-private-ip a dedicated Node is reached on its InternalIP, or on
// its public IP with an InternalIPNotConfigured event when it has none.
func TestDedicatedTargetPrivateIP(t *testing.T) {
	svc := lbService("web", []int32{80})
	ext := corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "198.51.100.7"}
	internal := corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.1.0.5"}
	if tg, n := dedicatedTarget(svc, dedicatedNode("d", "hrobot://1", ext, internal), true); tg.IP != "10.1.0.5" || n != nil {
		t.Errorf("private: %+v %+v", tg, n)
	}
	if tg, n := dedicatedTarget(svc, dedicatedNode("d", "hrobot://1", ext, internal), false); tg.IP != "198.51.100.7" || n != nil {
		t.Errorf("public: %+v %+v", tg, n)
	}
	if tg, n := dedicatedTarget(svc, dedicatedNode("d", "hrobot://1", ext), true); tg.IP != "198.51.100.7" || n == nil || n.Reason != eventInternalIPNotConfigured {
		t.Errorf("private without an InternalIP: %+v %+v", tg, n)
	}
}
