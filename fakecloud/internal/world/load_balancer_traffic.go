package world

import (
	"net/netip"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/trafficspec"
)

// SetTraffic makes load balancers with an address in the range carry
// traffic; probed gives their targets' checked health, and carried what
// each has carried, for its metrics.
func (s *State) SetTraffic(lbIPv4 netip.Prefix, probed func(lb int64, listenPort int, target string) (trafficspec.Health, bool),
	carried func(lb int64) []trafficspec.Counters) {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	w.LBIPv4, w.Probed, w.carried = lbIPv4.Masked(), probed, carried
}

// TrafficSpec settles due actions (they end by the clock, also when no
// request comes) and, when the world changed since the change count
// seen, returns what the data plane should carry and the count.
func (s *State) TrafficSpec(seen uint64) (spec []trafficspec.LoadBalancer, changes uint64, changed bool) {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	w.Settle()
	if w.Changes == seen {
		return nil, seen, false
	}
	return w.TrafficSpec(), w.Changes, true
}
