//go:build e2ekind

package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// runFabric plays Hetzner's network for the node containers: every 2 s it
// makes each running node's routes into the pod network those of
// fakecloud's network, as Hetzner routes them for every server. A node
// reaches another node's pods only through a route the CCM programmed.
func runFabric(ctx context.Context) {
	for {
		if err := applyRoutes(ctx); err != nil {
			logf("fabric: %v", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(2 * time.Second):
		}
	}
}

func applyRoutes(ctx context.Context) error {
	nw, _, err := cluster.cloud.Client.Network.Get(ctx, "cluster")
	if err != nil || nw == nil {
		return fmt.Errorf("network cluster: %v", err)
	}
	want := map[string]string{} // destination → gateway
	for _, r := range nw.Routes {
		want[r.Destination.String()] = r.Gateway.String()
	}
	for node, ip := range cluster.nodes {
		have, err := podRoutes(ctx, node)
		if err != nil {
			continue // stopped: its routes go with it, and come back when it starts
		}
		for dst, gw := range want {
			if gw != ip && have[dst] != gw {
				if err := nodeIP(ctx, node, "replace", dst, gw); err != nil {
					return err
				}
				logf("fabric: %s routes %s via %s", node, dst, gw)
			}
		}
		for dst, gw := range have {
			if want[dst] != gw {
				if err := nodeIP(ctx, node, "del", dst, gw); err != nil {
					return err
				}
				logf("fabric: %s no longer routes %s via %s", node, dst, gw)
			}
		}
	}
	return nil
}

// podRoutes are a node container's routes into the pod network through a
// gateway: destination → gateway.
func podRoutes(ctx context.Context, node string) (map[string]string, error) {
	out, err := exec.CommandContext(ctx, "docker", "exec", node, "ip", "-4", "route", "show", "root", podNet).Output()
	if err != nil {
		return nil, err
	}
	have := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[1] == "via" {
			have[f[0]] = f[2]
		}
	}
	return have, nil
}

func nodeIP(ctx context.Context, node, verb, dst, gw string) error {
	if out, err := exec.CommandContext(ctx, "docker", "exec", node, "ip", "route", verb, dst, "via", gw).CombinedOutput(); err != nil {
		return fmt.Errorf("%s: ip route %s %s via %s: %v: %s", node, verb, dst, gw, err, out)
	}
	return nil
}
