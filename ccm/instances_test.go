package ccm

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/inventory"
	"github.com/hcloudlab/hcloud-ccm/ccm/providerid"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

func newInstances(t *testing.T, c *cloudFixture, family string) (*instances, *record.FakeRecorder) {
	t.Helper()
	nets, err := c.Client.Network.All(t.Context())
	if err != nil || len(nets) != 1 {
		t.Fatal(nets, err)
	}
	rec := record.NewFakeRecorder(10)
	cfg := Config{NetworkID: nets[0].ID, AddressFamily: family, ZoneLabelEnabled: true, InventoryMaxAge: 5 * time.Minute, LifecycleMaxAge: time.Minute}
	return &instances{inv: inventory.NewInventory(c.Client, nil), cfg: cfg, recorder: rec}, rec
}

func node(name, providerID string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerID}}
}

func TestInstanceMetadata(t *testing.T) {
	c := newCloud(t, 2, fakecloud.Options{})
	i, _ := newInstances(t, c, AddressFamilyDualStack)
	md, err := i.InstanceMetadata(t.Context(), node("node-0001", ""))
	if err != nil {
		t.Fatal(err)
	}
	s, _, _ := c.Client.Server.GetByName(t.Context(), "node-0001")
	want := []corev1.NodeAddress{
		{Type: corev1.NodeHostName, Address: "node-0001"},
		{Type: corev1.NodeExternalIP, Address: s.PublicNet.IPv4.IP.String()},
		{Type: corev1.NodeExternalIP, Address: strings.TrimSuffix(s.PublicNet.IPv6.Network.String(), "/64") + "1"},
		{Type: corev1.NodeInternalIP, Address: s.PrivateNet[0].IP.String()},
	}
	if diff := cmp.Diff(want, md.NodeAddresses); diff != "" {
		t.Errorf("addresses (-want +got):\n%s", diff)
	}
	if md.ProviderID != providerid.FromServerID(s.ID) || md.InstanceType != "cx23" || md.Region != "fsn1" || md.Zone != "fsn1-dc14" ||
		md.AdditionalLabels[labelProvidedBy] != "cloud" {
		t.Errorf("metadata %+v", md)
	}
	byID, err := i.InstanceMetadata(t.Context(), node("renamed-node", providerid.FromServerID(s.ID)))
	if err != nil || byID.NodeAddresses[0].Address != "node-0001" {
		t.Errorf("lookup by provider ID: %+v %v", byID, err)
	}
	i.cfg.ZoneLabelEnabled, i.cfg.AddressFamily = false, AddressFamilyIPv6
	md, _ = i.InstanceMetadata(t.Context(), node("node-0001", ""))
	if md.Zone != "" || len(md.NodeAddresses) != 3 || md.NodeAddresses[1].Address == s.PublicNet.IPv4.IP.String() {
		t.Errorf("ipv6 without zone: %+v", md)
	}
	if _, err := i.InstanceMetadata(t.Context(), node("nobody", "")); err == nil {
		t.Error("metadata for a node without a server")
	}
	if _, err := i.InstanceMetadata(t.Context(), node("x", "hrobot://5")); err == nil {
		t.Error("metadata for a Robot provider ID")
	}
}

func TestInstanceExistsOnlyFalseWhenConfirmed(t *testing.T) {
	c := newCloud(t, 1, fakecloud.Options{})
	i, _ := newInstances(t, c, AddressFamilyIPv4)
	i.cfg.LifecycleMaxAge = 0 // always ask the API
	s, _, _ := c.Client.Server.GetByName(t.Context(), "node-0000")
	n := node("node-0000", providerid.FromServerID(s.ID))
	if ok, err := i.InstanceExists(t.Context(), n); !ok || err != nil {
		t.Fatalf("existing server: %v %v", ok, err)
	}
	for _, rule := range []fakecloud.Rule{{Path: "/**", Status: 500}, {Path: "/**", Status: 429}, {Path: "/**", Status: 503, PlainBody: true}} {
		c.FC.ClearFaults()
		if _, err := c.FC.AddFault(rule); err != nil {
			t.Fatal(err)
		}
		if ok, err := i.InstanceExists(t.Context(), n); err == nil {
			t.Errorf("with %d answers: exists=%v and no error; the node could be deleted", rule.Status, ok)
		}
	}
	c.FC.ClearFaults()
	if err := c.FC.Apply(fakecloud.Event{Type: "power_off_server", Server: s.ID}); err != nil {
		t.Fatal(err)
	}
	if off, err := i.InstanceShutdown(t.Context(), n); !off || err != nil {
		t.Errorf("powered off server: shutdown=%v %v", off, err)
	}
	if err := c.FC.Apply(fakecloud.Event{Type: "delete_server", Server: s.ID}); err != nil {
		t.Fatal(err)
	}
	if ok, err := i.InstanceExists(t.Context(), n); ok || err != nil {
		t.Errorf("deleted server: exists=%v %v, want false, nil", ok, err)
	}
}

func TestNodeIPMismatchEvent(t *testing.T) {
	c := newCloud(t, 1, fakecloud.Options{})
	i, rec := newInstances(t, c, AddressFamilyIPv4)
	n := node("node-0000", "")
	n.Annotations = map[string]string{"alpha.kubernetes.io/provided-node-ip": "192.0.2.99"}
	if _, err := i.InstanceMetadata(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	expectEvent(t, rec, eventNodeIPMismatch, "192.0.2.99")
}

func TestServerNotInNetworkEvent(t *testing.T) {
	c := newCloud(t, 1, fakecloud.Options{})
	i, rec := newInstances(t, c, AddressFamilyIPv4)
	c.CreateServer(t, "outsider")
	if _, err := i.InstanceMetadata(t.Context(), node("node-0000", "")); err != nil {
		t.Fatal(err)
	}
	if len(rec.Events) != 0 {
		t.Errorf("event for a server in the network: %q", <-rec.Events)
	}
	md, err := i.InstanceMetadata(t.Context(), node("outsider", ""))
	if err != nil {
		t.Fatal(err)
	}
	if len(md.NodeAddresses) != 2 {
		t.Errorf("addresses %v, want hostname and public IPv4 only", md.NodeAddresses)
	}
	expectEvent(t, rec, eventNotInNetwork, "HCLOUD_NETWORK")
}

// TestUnmatchedNodeKept: a NotReady Node with no provider ID whose name no
// server has is kept, with an event, unless the operator lets the CCM
// delete it; a Node whose server is gone by provider ID is not.
func TestUnmatchedNodeKept(t *testing.T) {
	c := newCloud(t, 1, fakecloud.Options{})
	i, rec := newInstances(t, c, AddressFamilyIPv4)
	i.cfg.LifecycleMaxAge = 0 // always ask the API
	edge := node("edge-7", "")
	if ok, err := i.InstanceExists(t.Context(), edge); !ok || err != nil {
		t.Errorf("an unmatched Node without provider ID: exists=%v %v, want kept", ok, err)
	}
	expectEvent(t, rec, eventUnmatchedNodeKept, "HCLOUD_INSTANCES_DELETE_UNMATCHED_NODES")
	if ok, err := i.InstanceExists(t.Context(), node("gone", "hcloud://424242")); ok || err != nil {
		t.Errorf("a Node whose server is gone by provider ID: exists=%v %v, want false", ok, err)
	}
	i.cfg.DeleteUnmatchedNodes = true
	if ok, err := i.InstanceExists(t.Context(), edge); ok || err != nil {
		t.Errorf("with HCLOUD_INSTANCES_DELETE_UNMATCHED_NODES: exists=%v %v, want false", ok, err)
	}
}
