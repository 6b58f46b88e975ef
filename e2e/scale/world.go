package scale

import (
	"fmt"
	"os"
	"strings"
)

// nodeName is the name of node i (1-based) and of its server.
func nodeName(i int) string { return fmt.Sprintf("node-%04d", i) }

// spareName is the server a replacement node joins on, joinName the one
// a node joins on just before its server is deleted.
const (
	spareName = "spare-1"
	joinName  = "spare-2"
)

// nodeIP is node i's address in the network: 10.0.0.2 onwards, 250 to a /24.
func nodeIP(i int) string { return fmt.Sprintf("10.0.%d.%d", (i-1)/250, (i-1)%250+2) }

// dedicatedIP is the public IPv4 of the k-th dedicated server (0-based),
// which its kubelet's --node-ip names.
func dedicatedIP(k int) string { return fmt.Sprintf("203.0.113.%d", k+2) }

// dedicatedIndex says whether node i is a dedicated server's, and which
// (0-based): the Dedicated Nodes just before the last, which stays a cloud
// server's (a phase deletes it).
func (c Config) dedicatedIndex(i int) (int, bool) {
	first := c.Nodes - c.Dedicated
	return i - first, c.Dedicated > 0 && i >= first && i < c.Nodes
}

// kubeletIP is the --node-ip of node i's kubelet.
func (c Config) kubeletIP(i int) string {
	if k, ok := c.dedicatedIndex(i); ok {
		return dedicatedIP(k)
	}
	return nodeIP(i)
}

// podCIDR is node i's pod CIDR, as node IPAM would give it.
func podCIDR(i int) string { return fmt.Sprintf("10.%d.%d.0/24", 128+i/256, i%256) }

// writeWorld writes fakecloud's seed: a network and a running server in it
// per node plus spares for the replacement and the join, and in its Robot
// webservice the dedicated servers of the hybrid setting.
func writeWorld(path string, c Config) error {
	n := c.Nodes
	var b strings.Builder
	b.WriteString(`# make scale: one server per node plus two spares, all in the network.
networks:
  - name: cluster
    ip_range: 10.0.0.0/8
    subnets:
      - type: cloud
        ip_range: 10.0.0.0/16
        network_zone: eu-central
servers:
`)
	var dedicated strings.Builder
	for i := 1; i <= n+2; i++ {
		name := nodeName(i)
		if k, ok := c.dedicatedIndex(i); ok {
			fmt.Fprintf(&dedicated, "  - server_name: %s\n    server_number: %d\n    server_ip: %s\n    product: AX41-NVMe\n    dc: FSN1-DC14\n",
				name, 2000001+k, dedicatedIP(k))
			continue
		}
		switch i {
		case n + 1:
			name = spareName
		case n + 2:
			name = joinName
		}
		fmt.Fprintf(&b, "  - name: %s\n    server_type: cx23\n    location: fsn1\n    networks:\n      - network: cluster\n        ip: %s\n", name, nodeIP(i))
	}
	if dedicated.Len() > 0 {
		b.WriteString("dedicated_servers:\n" + dedicated.String())
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
