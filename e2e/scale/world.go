package scale

import (
	"fmt"
	"os"
	"strings"
)

// nodeName is the name of node i (1-based) and of its server.
func nodeName(i int) string { return fmt.Sprintf("node-%04d", i) }

// spareName is the server a replacement node joins on.
const spareName = "spare-1"

// nodeIP is node i's address in the network: 10.0.0.2 onwards, 250 to a /24.
func nodeIP(i int) string { return fmt.Sprintf("10.0.%d.%d", (i-1)/250, (i-1)%250+2) }

// podCIDR is node i's pod CIDR, as node IPAM would give it.
func podCIDR(i int) string { return fmt.Sprintf("10.%d.%d.0/24", 128+i/256, i%256) }

// writeWorld writes fakecloud's seed: a network and n+1 running servers in
// it, one per node plus a spare for the replacement.
func writeWorld(path string, n int) error {
	var b strings.Builder
	b.WriteString(`# make scale: one server per node plus a spare, all in the network.
networks:
  - name: cluster
    ip_range: 10.0.0.0/8
    subnets:
      - type: cloud
        ip_range: 10.0.0.0/16
        network_zone: eu-central
servers:
`)
	for i := 1; i <= n+1; i++ {
		name := nodeName(i)
		if i == n+1 {
			name = spareName
		}
		fmt.Fprintf(&b, "  - name: %s\n    server_type: cx22\n    location: fsn1\n    networks:\n      - network: cluster\n        ip: %s\n", name, nodeIP(i))
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
