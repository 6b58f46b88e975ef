package ccm

import (
	"context"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	cloudproviderapi "k8s.io/cloud-provider/api"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/inventory"
	"github.com/hcloudlab/hcloud-ccm/ccm/providerid"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

func TestIPv6PodCIDR(t *testing.T) {
	net := netip.MustParsePrefix("2001:db8:1:2::/64")
	a := netip.MustParseAddr
	for _, c := range []struct {
		name  string
		bits  int
		avoid []netip.Addr
		want  string // "" for an error
	}{
		{"/80 beside the server's ::1", 80, []netip.Addr{a("2001:db8:1:2::1")}, "2001:db8:1:2:1::/80"},
		{"/80 with no address in the way", 80, []netip.Addr{a("198.51.100.1")}, "2001:db8:1:2::/80"},
		{"/112 beside ::1", 112, []netip.Addr{a("2001:db8:1:2::1")}, "2001:db8:1:2::1:0/112"},
		{"/112 beside two addresses", 112, []netip.Addr{a("2001:db8:1:2::1"), a("2001:db8:1:2::1:5")}, "2001:db8:1:2::2:0/112"},
		{"/65: both halves hold an address", 65, []netip.Addr{a("2001:db8:1:2::1"), a("2001:db8:1:2:8000::1")}, ""},
		{"/120", 120, []netip.Addr{a("2001:db8:1:2::1")}, "2001:db8:1:2::100/120"},
		{"the whole /64", 64, nil, ""},
	} {
		got, err := ipv6PodCIDR(net, c.bits, c.avoid)
		if c.want == "" && err == nil || c.want != "" && (err != nil || got.String() != c.want) {
			t.Errorf("%s: %v %v, want %q", c.name, got, err, c.want)
		}
	}
	if _, err := ipv6PodCIDR(netip.MustParsePrefix("2001:db8::/56"), 80, nil); err == nil {
		t.Error("a /56 was taken for a /64")
	}
}

func TestLoadNodeIPAMConfig(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	base := map[string]string{"HCLOUD_TOKEN": strings.Repeat("x", 64)}
	c, err := LoadConfig(env(base), nil)
	if err != nil || c.NodeIPAM != (NodeIPAMConfig{IPv6: false, IPv6MaskSize: 80, IPv4MaskSize: 24}) {
		t.Errorf("defaults %+v, %v", c.NodeIPAM, err)
	}
	base["HCLOUD_NODE_IPAM_IPV6_ENABLED"], base["HCLOUD_NODE_IPAM_IPV6_MASK_SIZE"] = "true", "112"
	if c, err := LoadConfig(env(base), nil); err != nil || c.NodeIPAM != (NodeIPAMConfig{IPv6: true, IPv6MaskSize: 112, IPv4MaskSize: 24}) {
		t.Errorf("set %+v, %v", c.NodeIPAM, err)
	}
	base["HCLOUD_NODE_IPAM_IPV4_CLUSTER_CIDR"] = "10.244.0.0/16"
	if c, err := LoadConfig(env(base), nil); err != nil || c.NodeIPAM.IPv4ClusterCIDR != netip.MustParsePrefix("10.244.0.0/16") || c.NodeIPAM.IPv4MaskSize != 24 {
		t.Errorf("dual-stack %+v, %v", c.NodeIPAM, err)
	}
	for v, mask := range map[string]string{"2001:db8::/56": "24", "10.244.0.0/16": "31", "10.0.0.0/8": "25"} {
		base["HCLOUD_NODE_IPAM_IPV4_CLUSTER_CIDR"], base["HCLOUD_NODE_IPAM_IPV4_MASK_SIZE"] = v, mask
		if _, err := LoadConfig(env(base), nil); err == nil || !strings.Contains(err.Error(), "HCLOUD_NODE_IPAM_IPV4_") {
			t.Errorf("%s /%s: %v, want an error naming the variable", v, mask, err)
		}
	}
	delete(base, "HCLOUD_NODE_IPAM_IPV4_CLUSTER_CIDR")
	delete(base, "HCLOUD_NODE_IPAM_IPV4_MASK_SIZE")
	for _, bad := range []string{"64", "121", "eighty"} {
		base["HCLOUD_NODE_IPAM_IPV6_MASK_SIZE"] = bad
		if _, err := LoadConfig(env(base), nil); err == nil || !strings.Contains(err.Error(), "HCLOUD_NODE_IPAM_IPV6_MASK_SIZE") {
			t.Errorf("%s: %v, want an error naming the variable", bad, err)
		}
	}
	base["HCLOUD_NODE_IPAM_IPV6_MASK_SIZE"], base["HCLOUD_NETWORK"] = "80", "k8s"
	if c, _ := LoadConfig(env(base), nil); !slices.ContainsFunc(c.Warnings, func(w string) bool { return strings.Contains(w, "HCLOUD_NETWORK_ROUTES_ENABLED=false") }) {
		t.Errorf("no warning of routes beside the mode: %q", c.Warnings)
	}
}

// TestNodeIPAM: an initialised cloud Node without a pod range gets the
// first /80 of its server's /64 beside the server's ::1, once, from the
// inventory the Node's initialisation filled (no request); a Node with a
// range keeps it, an uninitialised one waits, a server without IPv6 and
// another allocator's range are told in a Warning event.
func TestNodeIPAM(t *testing.T) {
	c := newCloud(t, 3, fakecloud.Options{})
	ctx := t.Context()
	if _, _, err := c.Client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "v4only", ServerType: &hcloud.ServerType{Name: "cx23"},
		Image: &hcloud.Image{Name: "ubuntu-24.04"}, Location: &hcloud.Location{Name: "fsn1"},
		PublicNet: &hcloud.ServerCreatePublicNet{EnableIPv4: true, EnableIPv6: false}}); err != nil {
		t.Fatal(err)
	}
	inv := inventory.NewInventory(c.Client, nil)
	servers := map[string]*hcloud.Server{}
	var nodes []*corev1.Node
	for _, name := range []string{"node-0000", "node-0001", "node-0002", "v4only"} {
		s := c.Server(t, name)
		if _, err := inv.ByServerID(ctx, s.ID, inventory.Within(time.Hour)); err != nil { // as the Node's initialisation reads it
			t.Fatal(err)
		}
		servers[name] = s
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerid.FromServerID(s.ID)}}
		if s.PublicNet.IPv6.Network != nil {
			n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: s.PublicNet.IPv6.IP.String() + "1"}}
		}
		nodes = append(nodes, n)
	}
	nodes[1].Spec.PodCIDR, nodes[1].Spec.PodCIDRs = "10.244.1.0/24", []string{"10.244.1.0/24"}
	nodes[2].Spec.Taints = []corev1.Taint{{Key: cloudproviderapi.TaintExternalCloudProvider, Effect: corev1.TaintEffectNoSchedule}}
	kube := fake.NewClientset(nodes[0], nodes[1], nodes[2], nodes[3])
	factory := informers.NewSharedInformerFactory(kube, 0)
	rec := record.NewFakeRecorder(20)
	c.FC.ResetCounters()
	ipam, err := newNodeIPAM(kube, factory.Core().V1().Nodes(), func(ctx context.Context, id int64) (*hcloud.Server, error) {
		return inv.ByServerID(ctx, id, inventory.Within(time.Hour))
	}, 80, rec)
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	go ipam.run(ctx)
	podCIDRs := func(name string) []string {
		n, err := kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return n.Spec.PodCIDRs
	}
	want0 := firstBlock(servers["node-0000"], 80)
	fakecloudtest.Eventually(t, 10*time.Second, "node-0000's range", func() bool { return slices.Equal(podCIDRs("node-0000"), []string{want0}) })
	if got := podCIDRs("node-0001"); !slices.Equal(got, []string{"10.244.1.0/24"}) {
		t.Errorf("node-0001's range changed to %v", got)
	}
	if got := podCIDRs("node-0002"); len(got) != 0 {
		t.Errorf("the uninitialised node-0002 got %v", got)
	}
	// Initialised, it gets its range.
	n2 := nodes[2].DeepCopy()
	n2.Spec.Taints = nil
	if _, err := kube.CoreV1().Nodes().Update(ctx, n2, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	want2 := firstBlock(servers["node-0002"], 80)
	fakecloudtest.Eventually(t, 10*time.Second, "node-0002's range", func() bool { return slices.Equal(podCIDRs("node-0002"), []string{want2}) })
	if n := c.requests(); n != 0 {
		t.Errorf("%d API requests, want 0: the servers come from the inventory", n)
	}
	events := drain(rec)
	for _, want := range []string{
		"Normal PodCIDRAssigned pod ranges " + want0,
		"Warning PodCIDRNotAssigned no pod range from the server's IPv6 /64 (HCLOUD_NODE_IPAM_IPV6_ENABLED): the Node has the pod ranges [10.244.1.0/24] from another allocator",
		"Warning PodCIDRNotAssigned no pod range from the server's IPv6 /64 (HCLOUD_NODE_IPAM_IPV6_ENABLED): server v4only has no public IPv6 /64",
	} {
		if !slices.ContainsFunc(events, func(e string) bool { return strings.HasPrefix(e, want) }) {
			t.Errorf("no event %q in %q", want, events)
		}
	}
	// A Node with its range costs nothing more: no patch at its updates.
	patches := func() int {
		n := 0
		for _, a := range kube.Actions() {
			if a.GetVerb() == "patch" {
				n++
			}
		}
		return n
	}
	before := patches()
	n0, _ := kube.CoreV1().Nodes().Get(ctx, "node-0000", metav1.GetOptions{})
	n0.Labels = map[string]string{"x": "y"}
	if _, err := kube.CoreV1().Nodes().Update(ctx, n0, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // a patch, if any, would come at once
	if got := patches(); got != before {
		t.Errorf("%d patches after an update of a Node with its range", got-before)
	}
}

// firstBlock is the pod range a server's Node gets when it lists the ::1.
func firstBlock(s *hcloud.Server, bits int) string {
	addr, _ := netip.AddrFromSlice(s.PublicNet.IPv6.Network.IP)
	p, _ := ipv6PodCIDR(netip.PrefixFrom(addr, 64), bits, []netip.Addr{ipv6Host1(netip.PrefixFrom(addr, 64))})
	return p.String()
}

func drain(rec *record.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-rec.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// TestNodeIPAMDualStack: with an IPv4 cluster CIDR each Node gets the
// lowest free IPv4 range beside its IPv6 one, IPv4 first; ranges Nodes
// hold are skipped, and two Nodes assigned one after the other, before
// the cache shows the first, never share one.
func TestNodeIPAMDualStack(t *testing.T) {
	c := newCloud(t, 3, fakecloud.Options{})
	ctx := t.Context()
	inv := inventory.NewInventory(c.Client, nil)
	var objs []runtime.Object
	servers := map[string]*hcloud.Server{}
	for i, name := range []string{"node-0000", "node-0001", "node-0002"} {
		s := c.Server(t, name)
		servers[name] = s
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerid.FromServerID(s.ID)}}
		if i == 0 { // another allocator's, kept; its range is taken
			n.Spec.PodCIDR, n.Spec.PodCIDRs = "10.244.0.0/24", []string{"10.244.0.0/24"}
		}
		objs = append(objs, n)
	}
	kube := fake.NewClientset(objs...)
	factory := informers.NewSharedInformerFactory(kube, 0)
	ipam, err := newNodeIPAM(kube, factory.Core().V1().Nodes(), func(ctx context.Context, id int64) (*hcloud.Server, error) {
		return inv.ByServerID(ctx, id, inventory.Within(time.Hour))
	}, 80, nil)
	if err != nil {
		t.Fatal(err)
	}
	ipam.v4 = &ipv4Pool{cidr: netip.MustParsePrefix("10.244.0.0/16"), bits: 24, given: map[string]netip.Prefix{}}
	factory.Start(ctx.Done())
	go ipam.run(ctx)
	got := map[string][]string{}
	fakecloudtest.Eventually(t, 10*time.Second, "both Nodes' ranges", func() bool {
		for _, name := range []string{"node-0001", "node-0002"} {
			n, err := kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			if err != nil || len(n.Spec.PodCIDRs) != 2 {
				return false
			}
			got[name] = n.Spec.PodCIDRs
		}
		return true
	})
	v4s := []string{got["node-0001"][0], got["node-0002"][0]}
	slices.Sort(v4s)
	if !slices.Equal(v4s, []string{"10.244.1.0/24", "10.244.2.0/24"}) {
		t.Errorf("IPv4 ranges %v, want 10.244.1.0/24 and 10.244.2.0/24", got)
	}
	for name, cidrs := range got {
		if want := firstBlock(servers[name], 80); cidrs[1] != want {
			t.Errorf("%s: IPv6 range %s, want %s", name, cidrs[1], want)
		}
	}
}

func TestIPv4PoolNext(t *testing.T) {
	p := &ipv4Pool{cidr: netip.MustParsePrefix("10.0.0.0/30"), bits: 31, given: map[string]netip.Prefix{}}
	held := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Spec: corev1.NodeSpec{PodCIDRs: []string{"10.0.0.0/31", "2001:db8::/80"}}}
	b := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "b"}}
	got, err := p.next("b", []*corev1.Node{held, b})
	if err != nil || got.String() != "10.0.0.2/31" {
		t.Fatalf("next %v %v, want 10.0.0.2/31", got, err)
	}
	p.given["b"] = got
	if _, err := p.next("c", []*corev1.Node{held, b, {ObjectMeta: metav1.ObjectMeta{Name: "c"}}}); err == nil {
		t.Error("a full cluster CIDR gave a range")
	}
	// b gone: its range is free again.
	if got, err := p.next("c", []*corev1.Node{held, {ObjectMeta: metav1.ObjectMeta{Name: "c"}}}); err != nil || got.String() != "10.0.0.2/31" {
		t.Errorf("after b went: %v %v, want 10.0.0.2/31", got, err)
	}
}

// TestNodeIPAMRemembersWhatItGave: two Nodes assigned before the cache
// shows the first's ranges get different IPv4 ranges.
func TestNodeIPAMRemembersWhatItGave(t *testing.T) {
	c := newCloud(t, 2, fakecloud.Options{})
	ctx := t.Context()
	inv := inventory.NewInventory(c.Client, nil)
	var objs []runtime.Object
	for _, name := range []string{"node-0000", "node-0001"} {
		objs = append(objs, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerid.FromServerID(c.Server(t, name).ID)}})
	}
	kube := fake.NewClientset(objs...)
	factory := informers.NewSharedInformerFactory(kube, 0)
	nodes := factory.Core().V1().Nodes()
	ipam, err := newNodeIPAM(kube, nodes, func(ctx context.Context, id int64) (*hcloud.Server, error) {
		return inv.ByServerID(ctx, id, inventory.Within(time.Hour))
	}, 80, nil)
	if err != nil {
		t.Fatal(err)
	}
	ipam.v4 = &ipv4Pool{cidr: netip.MustParsePrefix("10.244.0.0/16"), bits: 24, given: map[string]netip.Prefix{}}
	for _, o := range objs { // a cache that never catches up: the informer is not started
		if err := nodes.Informer().GetStore().Add(o); err != nil {
			t.Fatal(err)
		}
	}
	var v4s []string
	for _, name := range []string{"node-0000", "node-0001"} {
		if err := ipam.sync(ctx, name); err != nil {
			t.Fatal(err)
		}
		n, err := kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil || len(n.Spec.PodCIDRs) != 2 {
			t.Fatalf("%s: %v %v", name, n, err)
		}
		v4s = append(v4s, n.Spec.PodCIDRs[0])
	}
	if !slices.Equal(v4s, []string{"10.244.0.0/24", "10.244.1.0/24"}) {
		t.Errorf("IPv4 ranges %v, want 10.244.0.0/24 then 10.244.1.0/24", v4s)
	}
}
