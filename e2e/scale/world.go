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

// podCIDR is node i's pod CIDR, as node IPAM would give it.
func podCIDR(i int) string { return fmt.Sprintf("10.%d.%d.0/24", 128+i/256, i%256) }

// writeWorld writes fakecloud's seed: a network and n+2 running servers in
// it, one per node plus spares for the replacement and the join.
func writeWorld(path string, n int) error {
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
	for i := 1; i <= n+2; i++ {
		name := nodeName(i)
		switch i {
		case n + 1:
			name = spareName
		case n + 2:
			name = joinName
		}
		fmt.Fprintf(&b, "  - name: %s\n    server_type: cx22\n    location: fsn1\n    networks:\n      - network: cluster\n        ip: %s\n", name, nodeIP(i))
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
