package scale

import (
	"path/filepath"
	"testing"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// The hybrid world seeds: the dedicated Nodes' servers are in the Robot
// webservice, not the cloud, with the addresses their kubelets name.
func TestHybridWorld(t *testing.T) {
	c := Defaults()
	c.Nodes, c.Dedicated, c.Pool, c.NotReady = 60, 5, 10, 5
	path := filepath.Join(t.TempDir(), "world.yaml")
	if err := writeWorld(path, c); err != nil {
		t.Fatal(err)
	}
	w, err := fakecloud.LoadWorld(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := fakecloud.New(fakecloud.Options{}).Seed(w); err != nil {
		t.Fatalf("the world does not seed: %v", err)
	}
	if len(w.Servers) != 57 || len(w.DedicatedServers) != 5 {
		t.Fatalf("%d cloud servers, %d dedicated; want 57 and 5", len(w.Servers), len(w.DedicatedServers))
	}
	for k, d := range w.DedicatedServers {
		i := c.Nodes - c.Dedicated + k
		if d.Name != nodeName(i) || d.IPv4 != c.kubeletIP(i) {
			t.Errorf("dedicated server %d: %s %s, want %s %s", k, d.Name, d.IPv4, nodeName(i), c.kubeletIP(i))
		}
	}
	if _, ok := c.dedicatedIndex(c.Nodes); ok {
		t.Error("the last Node, which a phase deletes through the cloud API, is a dedicated server's")
	}
}
