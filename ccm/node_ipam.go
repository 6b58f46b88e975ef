package ccm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	cloudprovider "k8s.io/cloud-provider"
	cloudproviderapi "k8s.io/cloud-provider/api"
	"k8s.io/klog/v2"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/inventory"
	"github.com/hcloudlab/hcloud-ccm/ccm/providerid"
)

// The node IPAM mode gives each cloud server's Node a pod range from the
// server's own IPv6 /64, as kube-controller-manager's range allocator
// gives one from --cluster-cidr: once, when spec.podCIDRs is empty (the
// API server refuses to change podCIDRs once set, so a range another
// allocator gave first, such as an IPv4 one, stays and this mode leaves
// the Node be, with an event). The range is the first of
// HCLOUD_NODE_IPAM_IPV6_MASK_SIZE in the /64 that holds none of the
// Node's addresses, so the server's own ::1 is never a pod's. Networks
// are IPv4-only, so routes cannot carry these ranges: the mode is for
// clusters whose CNI routes each range through its server's /64 (native
// routing, no overlay). The server comes from the inventory the Node's
// initialisation just filled, so a range costs no request as a rule, and
// a Node that has one costs nothing.

// Event reasons of the node IPAM mode.
const (
	eventPodCIDRAssigned    = "PodCIDRAssigned"
	eventPodCIDRNotAssigned = "PodCIDRNotAssigned"
)

// subsystemNodeIPAM counts the mode's inventory lookups.
const subsystemNodeIPAM = "node_ipam"

// nodeIPAMRetries bounds the tries for one Node between its updates.
const nodeIPAMRetries = 8

// ipv6PodCIDR is the first prefix of size bits in the /64 net that holds
// none of avoid (the Node's own addresses).
func ipv6PodCIDR(net netip.Prefix, bits int, avoid []netip.Addr) (netip.Prefix, error) {
	if !net.Addr().Is6() || net.Addr().Is4In6() || net.Bits() != 64 {
		return netip.Prefix{}, fmt.Errorf("%s is not an IPv6 /64", net)
	}
	if bits <= 64 || bits > 128 {
		return netip.Prefix{}, fmt.Errorf("a /%d range is not a part of a /64", bits)
	}
	base := net.Masked().Addr().As16()
	for i := range uint64(len(avoid) + 1) { // one of the first len(avoid)+1 blocks holds none
		if bits-64 < 64 && i >= 1<<(bits-64) {
			break // the /64 has no more blocks
		}
		b := base
		hi := i << (128 - bits) // the block's offset, in the low 64 bits
		for j := range 8 {
			b[8+j] |= byte(hi >> (56 - 8*j))
		}
		p := netip.PrefixFrom(netip.AddrFrom16(b), bits)
		if !slices.ContainsFunc(avoid, p.Contains) {
			return p, nil
		}
	}
	return netip.Prefix{}, fmt.Errorf("no /%d of %s is free of the Node's addresses", bits, net)
}

// nodeIPAM assigns the pod ranges.
type nodeIPAM struct {
	kube     kubernetes.Interface
	nodes    coreinformers.NodeInformer
	server   func(ctx context.Context, id int64) (*hcloud.Server, error)
	bits     int
	v4       *ipv4Pool // nil: IPv6 ranges only
	recorder record.EventRecorder
	queue    workqueue.TypedRateLimitingInterface[string]

	mu   sync.Mutex
	told map[string]string // by Node: the last PodCIDRNotAssigned message, said once
}

func newNodeIPAM(kube kubernetes.Interface, nodes coreinformers.NodeInformer, server func(context.Context, int64) (*hcloud.Server, error),
	bits int, recorder record.EventRecorder) (*nodeIPAM, error) {
	n := &nodeIPAM{kube: kube, nodes: nodes, server: server, bits: bits, recorder: recorder, told: map[string]string{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, 5*time.Minute),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "hcloud_node_ipam"})}
	enqueue := func(obj any) {
		if node, ok := obj.(*corev1.Node); ok && len(node.Spec.PodCIDRs) == 0 && node.Spec.PodCIDR == "" {
			n.queue.Add(node.Name)
		} else if ok {
			n.leftAlone(node)
		}
	}
	_, err := nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, cur any) { enqueue(cur) },
		DeleteFunc: func(obj any) {
			if node, ok := obj.(*corev1.Node); ok {
				n.mu.Lock()
				delete(n.told, node.Name)
				n.mu.Unlock()
			}
		},
	})
	return n, err
}

// run assigns ranges until ctx ends.
func (n *nodeIPAM) run(ctx context.Context) {
	defer n.queue.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), n.nodes.Informer().HasSynced) {
		return
	}
	go wait.UntilWithContext(ctx, func(ctx context.Context) {
		for n.next(ctx) {
		}
	}, time.Second)
	<-ctx.Done()
}

func (n *nodeIPAM) next(ctx context.Context) bool {
	name, quit := n.queue.Get()
	if quit {
		return false
	}
	defer n.queue.Done(name)
	err := n.sync(ctx, name)
	switch {
	case err == nil:
		n.queue.Forget(name)
	case n.queue.NumRequeues(name) < nodeIPAMRetries:
		klog.V(2).InfoS("Assigning a pod range failed; trying again", "node", name, "err", err)
		n.queue.AddRateLimited(name)
	default:
		klog.ErrorS(err, "Assigning a pod range failed; trying again at the Node's next update", "node", name)
		n.queue.Forget(name)
	}
	return true
}

// sync gives the Node its range, when it has none and is initialised.
func (n *nodeIPAM) sync(ctx context.Context, name string) error {
	node, err := n.nodes.Lister().Get(name)
	if err != nil {
		return nil // gone
	}
	if len(node.Spec.PodCIDRs) > 0 || node.Spec.PodCIDR != "" || node.Spec.ProviderID == "" || uninitialized(node) {
		return nil // the initialisation's update brings it back
	}
	if providerid.IsRobot(node.Spec.ProviderID) {
		n.notAssigned(node, "the Node is a dedicated server's: the mode assigns ranges from cloud servers' /64s only")
		return nil
	}
	id, err := providerid.ToServerID(node.Spec.ProviderID)
	if err != nil {
		n.notAssigned(node, err.Error())
		return nil
	}
	s, err := n.server(ctx, id)
	if err != nil {
		return err
	}
	if s == nil {
		return nil // the lifecycle controller handles a gone server
	}
	net := netip.Prefix{}
	if !s.PublicNet.IPv6.IsUnspecified() && s.PublicNet.IPv6.Network != nil {
		addr, _ := netip.AddrFromSlice(s.PublicNet.IPv6.Network.IP)
		ones, _ := s.PublicNet.IPv6.Network.Mask.Size()
		net = netip.PrefixFrom(addr.Unmap(), ones)
	}
	if !net.IsValid() {
		n.notAssigned(node, fmt.Sprintf("server %s has no public IPv6 /64 (it was created without IPv6); add an IPv6 Primary IP to it", s.Name))
		return nil
	}
	var avoid []netip.Addr
	for _, a := range node.Status.Addresses {
		if ip, err := netip.ParseAddr(a.Address); err == nil {
			avoid = append(avoid, ip)
		}
	}
	if !slices.ContainsFunc(avoid, net.Contains) {
		avoid = append(avoid, ipv6Host1(net)) // the server's own, even when the Node does not list it
	}
	cidr, err := ipv6PodCIDR(net, n.bits, avoid)
	if err != nil {
		n.notAssigned(node, err.Error())
		return nil
	}
	cidrs := []string{cidr.String()}
	var v4 netip.Prefix
	if n.v4 != nil { // dual-stack: IPv4 first, as kube-controller-manager orders --cluster-cidr
		all, err := n.nodes.Lister().List(labels.Everything())
		if err != nil {
			return err
		}
		if v4, err = n.v4.next(node.Name, all); err != nil {
			n.notAssigned(node, err.Error())
			return nil
		}
		cidrs = []string{v4.String(), cidr.String()}
	}
	// Conditional on the Node as read: a range set meanwhile stays.
	patch, _ := json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": node.ResourceVersion},
		"spec":     map[string]any{"podCIDR": cidrs[0], "podCIDRs": cidrs},
	})
	if _, err := n.kube.CoreV1().Nodes().Patch(ctx, node.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("set pod ranges %v of Node %s: %w", cidrs, node.Name, err)
	}
	if n.v4 != nil {
		n.v4.given[node.Name] = v4
	}
	klog.InfoS("Assigned pod ranges, the IPv6 one from the server's /64", "node", klog.KObj(node), "podCIDRs", cidrs)
	if n.recorder != nil {
		n.recorder.Eventf(node, corev1.EventTypeNormal, eventPodCIDRAssigned, "pod ranges %s; the IPv6 one from server %s's %s", strings.Join(cidrs, ", "), s.Name, net)
	}
	return nil
}

// leftAlone tells, once, of a Node whose pod ranges another allocator set
// without an IPv6 one: podCIDRs cannot change once set.
func (n *nodeIPAM) leftAlone(node *corev1.Node) {
	cidrs := node.Spec.PodCIDRs
	if len(cidrs) == 0 && node.Spec.PodCIDR != "" {
		cidrs = []string{node.Spec.PodCIDR}
	}
	for _, c := range cidrs {
		if p, err := netip.ParsePrefix(c); err == nil && p.Addr().Is6() {
			return
		}
	}
	n.notAssigned(node, fmt.Sprintf("the Node has the pod ranges %v from another allocator (kube-controller-manager's --allocate-node-cidrs?), "+
		"and podCIDRs cannot change once set; to have an IPv6 range from the server's /64, let this CCM assign the Node's ranges alone", cidrs))
}

// notAssigned is a Warning event on the Node, once per reason.
func (n *nodeIPAM) notAssigned(node *corev1.Node, why string) {
	n.mu.Lock()
	said := n.told[node.Name] == why
	n.told[node.Name] = why
	n.mu.Unlock()
	if !said && n.recorder != nil {
		n.recorder.Event(node, corev1.EventTypeWarning, eventPodCIDRNotAssigned, "no pod range from the server's IPv6 /64 (HCLOUD_NODE_IPAM_IPV6_ENABLED): "+why)
	}
}

// uninitialized says the cloud node controller has not initialised the Node.
func uninitialized(node *corev1.Node) bool {
	return slices.ContainsFunc(node.Spec.Taints, func(t corev1.Taint) bool { return t.Key == cloudproviderapi.TaintExternalCloudProvider })
}

// ipv6Host1 is the ::1 of the /64.
func ipv6Host1(net netip.Prefix) netip.Addr {
	b := net.Masked().Addr().As16()
	b[15] = 1
	return netip.AddrFrom16(b)
}

// startNodeIPAM runs the mode when HCLOUD_NODE_IPAM_IPV6_ENABLED is set.
func (c *Cloud) startNodeIPAM(builder cloudprovider.ControllerClientBuilder, recorder record.EventRecorder, stop <-chan struct{}) {
	if !c.cfg.NodeIPAM.IPv6 {
		return
	}
	client, err := builder.Client("hcloud-node-ipam")
	if err != nil {
		klog.ErrorS(err, "No Kubernetes client for the node IPAM mode; Nodes get no IPv6 pod range")
		return
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	fresh := inventory.Within(c.cfg.InventoryMaxAge).For(subsystemNodeIPAM)
	ipam, err := newNodeIPAM(client, factory.Core().V1().Nodes(), func(ctx context.Context, id int64) (*hcloud.Server, error) {
		return c.inv.ByServerID(ctx, id, fresh)
	}, c.cfg.NodeIPAM.IPv6MaskSize, recorder)
	if err != nil {
		klog.ErrorS(err, "Starting the node IPAM mode")
		return
	}
	if c.cfg.NodeIPAM.IPv4ClusterCIDR.IsValid() {
		ipam.v4 = &ipv4Pool{cidr: c.cfg.NodeIPAM.IPv4ClusterCIDR, bits: c.cfg.NodeIPAM.IPv4MaskSize, given: map[string]netip.Prefix{}}
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(stop)
	go ipam.run(ctx)
	go func() {
		<-stop
		cancel()
	}()
}
