package fakecloud

import (
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/lbtraffic"
)

// startTraffic makes load balancers with an address in the range carry
// traffic: the data plane follows every change of the world, which it
// reads through the world's lock like a request, and what it carries is
// sampled once a second for the load balancers' metrics.
func (s *Server) startTraffic() {
	o := s.opts
	s.traffic = lbtraffic.New(lbtraffic.Options{Dial: o.LoadBalancerDial, Logger: o.Logger})
	s.world.SetTraffic(o.LoadBalancerIPv4Range, s.traffic.Checked, s.traffic.History)
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		seen := ^uint64(0)
		for n := 0; ; n++ {
			select {
			case <-s.closing:
				return
			case <-tick.C:
			}
			if n%10 == 0 { // what each load balancer carried, once a second, for its metrics
				s.traffic.Sample(o.Now())
			}
			spec, changes, changed := s.world.TrafficSpec(seen)
			if changed {
				seen = changes
				s.traffic.Sync(spec)
			}
		}
	}()
}
