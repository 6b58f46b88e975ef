package scale

import (
	"os"
	"testing"
)

func TestReadUsageOfThisProcess(t *testing.T) {
	u, err := readUsage(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if u.peakRSS < 1<<20 || u.peakRSS > 64<<30 {
		t.Errorf("peak RSS %d bytes, not a test binary's", u.peakRSS)
	}
	x := 0
	for i := range 200_000_000 { // burn some CPU, so utime moves
		x ^= i
	}
	_ = x
	if v, err := readUsage(os.Getpid()); err != nil || v.cpu <= 0 {
		t.Errorf("CPU time %v, %v; want more than zero after a busy loop", v.cpu, err)
	}
}

func TestNodeAddressesAreDistinct(t *testing.T) {
	ips, cidrs := map[string]bool{}, map[string]bool{}
	for i := 1; i <= 2001; i++ {
		if ips[nodeIP(i)] || cidrs[podCIDR(i)] {
			t.Fatalf("node %d: %s or %s repeats", i, nodeIP(i), podCIDR(i))
		}
		ips[nodeIP(i)], cidrs[podCIDR(i)] = true, true
	}
	if nodeIP(1) != "10.0.0.2" || nodeIP(251) != "10.0.1.2" {
		t.Errorf("nodeIP(1), nodeIP(251) = %s, %s", nodeIP(1), nodeIP(251))
	}
}
