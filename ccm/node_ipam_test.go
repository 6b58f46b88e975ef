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
	if err != nil || c.NodeIPAM != (NodeIPAMConfig{IPv6: false, IPv6MaskSize: 80}) {
		t.Errorf("defaults %+v, %v", c.NodeIPAM, err)
	}
	base["HCLOUD_NODE_IPAM_IPV6_ENABLED"], base["HCLOUD_NODE_IPAM_IPV6_MASK_SIZE"] = "true", "112"
	if c, err := LoadConfig(env(base), nil); err != nil || c.NodeIPAM != (NodeIPAMConfig{IPv6: true, IPv6MaskSize: 112}) {
		t.Errorf("set %+v, %v", c.NodeIPAM, err)
	}
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
		"Normal PodCIDRAssigned pod range " + want0,
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
