//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// TestIPv6: with HCLOUD_INSTANCES_ADDRESS_FAMILY=dualstack and the node
// IPAM mode, each Node gets a pod range from its server's /64 beside the
// server's own address, and one with another allocator's range keeps it
// (the API server refuses to change it); a Service with target-address-family dualstack
// has each Node as a target on its IPv4 and on its IPv6, a server
// without public IPv4 on its IPv6 only (no TargetRejected); ipv6 then
// leaves only the IPv6 ones.
func TestIPv6(t *testing.T) {
	env := setup(t, func(o *harness.Options) {
		o.CCMEnv = append(o.CCMEnv, "HCLOUD_INSTANCES_ADDRESS_FAMILY=dualstack", "HCLOUD_NODE_IPAM_IPV6_ENABLED=true",
			"HCLOUD_NODE_IPAM_IPV6_MASK_SIZE=112")
	})
	ctx := context.Background()
	api := env.Cloud().Client
	if _, _, err := api.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "v6only", ServerType: &hcloud.ServerType{Name: "cx23"},
		Image: &hcloud.Image{Name: "ubuntu-24.04"}, Location: &hcloud.Location{Name: "fsn1"},
		PublicNet: &hcloud.ServerCreatePublicNet{EnableIPv4: false, EnableIPv6: true}}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.StartCCM(ctx); err != nil {
		t.Fatal(err)
	}
	names := []string{"control-plane-1", "worker-1", "v6only"}
	done := timed(t, "Nodes initialised with pod ranges of their /64s")
	for _, n := range names {
		if err := env.RegisterNode(ctx, n, ""); err != nil { // no range: the CCM's to give
			t.Fatal(err)
		}
	}
	servers := map[string]*hcloud.Server{}
	for _, n := range names {
		s, _, err := api.Server.GetByName(ctx, n)
		if err != nil || s == nil {
			t.Fatalf("server %s: %v", n, err)
		}
		servers[n] = s
		net := netip.PrefixFrom(netip.MustParseAddr(s.PublicNet.IPv6.Network.IP.String()), 64)
		want := netip.PrefixFrom(addOffset(net.Addr(), 1<<16), 112) // ::1 is the server's: the second /112
		fakecloudtest.Eventually(t, time.Minute, n+"'s pod range", func() bool {
			got := node(t, env, n).Spec.PodCIDRs
			return slices.Equal(got, []string{want.String()})
		})
	}
	// A Node that another allocator gave an IPv4 range keeps it, told: the
	// API server refuses a change of podCIDRs once set.
	var err error
	if err = env.RegisterNode(ctx, "worker-2", cidr(2)); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, time.Minute, "PodCIDRNotAssigned on worker-2", func() bool {
		evs, err := env.Kube.CoreV1().Events("").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=worker-2,reason=PodCIDRNotAssigned"})
		return err == nil && len(evs.Items) > 0
	})
	if servers["worker-2"], _, err = api.Server.GetByName(ctx, "worker-2"); err != nil || servers["worker-2"] == nil {
		t.Fatalf("server worker-2: %v", err)
	}
	w2 := node(t, env, "worker-2")
	if !slices.Equal(w2.Spec.PodCIDRs, []string{cidr(2)}) {
		t.Errorf("worker-2's pod ranges %v, want %s kept", w2.Spec.PodCIDRs, cidr(2))
	}
	w2.Spec.PodCIDRs = append(w2.Spec.PodCIDRs, "2001:db8:1::/112")
	if _, err := env.Kube.CoreV1().Nodes().Update(ctx, w2, metav1.UpdateOptions{}); err == nil {
		t.Error("the API server let a Node's podCIDRs grow once set")
	}
	done()

	// The Nodes' ExternalIPs, which the targets are on, are all written
	// before the Service comes.
	for _, n := range append(slices.Clone(names), "worker-2") {
		want := 1
		if s := servers[n]; s.PublicNet.IPv4.IP != nil && !s.PublicNet.IPv4.IsUnspecified() {
			want = 2
		}
		fakecloudtest.Eventually(t, time.Minute, n+"'s ExternalIPs", func() bool {
			got := 0
			for _, a := range node(t, env, n).Status.Addresses {
				if a.Type == corev1.NodeExternalIP {
					got++
				}
			}
			return got == want
		})
	}

	done = timed(t, "dualstack targets; the server without IPv4 on its IPv6")
	svc := classService("web", "")
	svc.Annotations["load-balancer.hetzner.cloud/target-address-family"] = "dualstack"
	if _, err := env.Kube.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	wantTargets := func(v4 bool) []string {
		var out []string
		for _, n := range append(slices.Clone(names), "worker-2") {
			s := servers[n]
			if v4 && s.PublicNet.IPv4.IP != nil && !s.PublicNet.IPv4.IsUnspecified() {
				out = append(out, fmt.Sprint(s.ID))
			}
			out = append(out, fmt.Sprintf("%d@%s", s.ID, addOffset(netip.MustParseAddr(s.PublicNet.IPv6.Network.IP.String()), 1)))
		}
		slices.Sort(out)
		return out
	}
	if err := fakecloudtest.Wait(time.Minute, func() bool { return slices.Equal(rawTargets(t, env), wantTargets(true)) }); err != nil {
		t.Fatalf("dualstack targets %v, want %v: %v", rawTargets(t, env), wantTargets(true), err)
	}
	done()

	done = timed(t, "ipv6 targets")
	update(t, env, "web", func(s *corev1.Service) { s.Annotations["load-balancer.hetzner.cloud/target-address-family"] = "ipv6" })
	fakecloudtest.Eventually(t, time.Minute, "ipv6 targets", func() bool { return slices.Equal(rawTargets(t, env), wantTargets(false)) })
	done()
	events, err := env.Kube.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "reason=TargetRejected"})
	if err != nil {
		t.Fatal(err)
	}
	if len(events.Items) != 0 {
		t.Errorf("TargetRejected: %s", events.Items[0].Message)
	}
}

// addOffset is a plus off in its last 64 bits.
func addOffset(a netip.Addr, off uint64) netip.Addr {
	b := a.As16()
	lo := uint64(0)
	for i := 8; i < 16; i++ {
		lo = lo<<8 | uint64(b[i])
	}
	lo += off
	for i := 15; i >= 8; i-- {
		b[i] = byte(lo)
		lo >>= 8
	}
	return netip.AddrFrom16(b)
}

// rawTargets are the one load balancer's server targets (none before it
// is made) as the API names
// them, "<id>" on the IPv4 and "<id>@<ipv6>" on an IPv6, sorted; read
// from the body, as hcloud-go does not read server.ip.
func rawTargets(t *testing.T, env *harness.Env) []string {
	t.Helper()
	all, err := env.Cloud().Client.LoadBalancer.All(context.Background())
	if err != nil || len(all) != 1 {
		return nil // not made yet
	}
	req, _ := http.NewRequest("GET", fmt.Sprintf("%s/v1/load_balancers/%d", env.CloudURL, all[0].ID), nil)
	req.Header.Set("Authorization", "Bearer "+harness.FakeCloudToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		LoadBalancer struct {
			Targets []struct {
				Server *struct {
					ID int64  `json:"id"`
					IP string `json:"ip"`
				} `json:"server"`
			} `json:"targets"`
		} `json:"load_balancer"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tg := range body.LoadBalancer.Targets {
		if tg.Server == nil {
			continue
		}
		if a, err := netip.ParseAddr(tg.Server.IP); err == nil && a.Is6() {
			out = append(out, fmt.Sprintf("%d@%s", tg.Server.ID, a))
		} else {
			out = append(out, fmt.Sprint(tg.Server.ID))
		}
	}
	slices.Sort(out)
	return out
}

// TestIPv6DualStackPodRanges: with HCLOUD_NODE_IPAM_IPV4_CLUSTER_CIDR the
// Nodes get an IPv4 range, lowest free first, and the IPv6 one of their
// server's /64, at once; the network routes the IPv4 ranges, and refuses
// the IPv6 ones (networks are IPv4-only), with RouteRefused.
func TestIPv6DualStackPodRanges(t *testing.T) {
	env := setup(t, func(o *harness.Options) {
		o.CCMEnv = append(o.CCMEnv, "HCLOUD_INSTANCES_ADDRESS_FAMILY=dualstack", "HCLOUD_NODE_IPAM_IPV6_ENABLED=true",
			"HCLOUD_NODE_IPAM_IPV4_CLUSTER_CIDR=10.244.0.0/16")
	})
	ctx := context.Background()
	if _, err := env.StartCCM(ctx); err != nil {
		t.Fatal(err)
	}
	done := timed(t, "dual-stack pod ranges, the IPv4 ones routed")
	gateways := map[string]string{"control-plane-1": "10.0.0.2", "worker-1": "10.0.0.3"}
	for _, n := range []string{"control-plane-1", "worker-1"} {
		if err := env.RegisterNode(ctx, n, ""); err != nil {
			t.Fatal(err)
		}
	}
	routes := map[string]string{}
	for n, gw := range gateways {
		s, _, err := env.Cloud().Client.Server.GetByName(ctx, n)
		if err != nil || s == nil {
			t.Fatalf("server %s: %v", n, err)
		}
		v6 := netip.PrefixFrom(addOffset(netip.MustParseAddr(s.PublicNet.IPv6.Network.IP.String()), 1<<48), 80) // ::1 is the server's: the second /80
		var cidrs []string
		fakecloudtest.Eventually(t, time.Minute, n+"'s pod ranges", func() bool {
			cidrs = node(t, env, n).Spec.PodCIDRs
			return len(cidrs) == 2
		})
		if p, err := netip.ParsePrefix(cidrs[0]); err != nil || !p.Addr().Is4() || p.Bits() != 24 || !netip.MustParsePrefix("10.244.0.0/16").Contains(p.Addr()) || cidrs[1] != v6.String() {
			t.Fatalf("%s's pod ranges %v, want a /24 of 10.244.0.0/16 and %s", n, cidrs, v6)
		}
		routes[cidrs[0]] = gw
	}
	if len(routes) != 2 {
		t.Fatalf("the two Nodes share an IPv4 range: %v", routes)
	}
	fakecloudtest.Eventually(t, time.Minute, "a route per IPv4 range", func() bool { return sameRoutes(t, env, routes) })
	fakecloudtest.Eventually(t, time.Minute, "RouteRefused for an IPv6 range", func() bool {
		evs, err := env.Kube.CoreV1().Events("").List(ctx, metav1.ListOptions{FieldSelector: "reason=RouteRefused"})
		return err == nil && len(evs.Items) > 0
	})
	done()
}
