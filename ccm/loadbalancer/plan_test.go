package loadbalancer

import (
	"net"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

var testTypes = lbTypes{
	"lb11": {Name: "lb11", MaxConnections: 10000, MaxTargets: 25},
	"lb21": {Name: "lb21", MaxConnections: 20000, MaxTargets: 75},
}

func tcpService(port, nodePort int) hcloud.LoadBalancerAddServiceOpts {
	return hcloud.LoadBalancerAddServiceOpts{Protocol: "tcp", ListenPort: hcloud.Ptr(port), DestinationPort: hcloud.Ptr(nodePort),
		Proxyprotocol: hcloud.Ptr(false), HealthCheck: &hcloud.LoadBalancerAddServiceOptsHealthCheck{Protocol: "tcp", Port: hcloud.Ptr(nodePort)}}
}

func existing(mod func(lb *hcloud.LoadBalancer)) *hcloud.LoadBalancer {
	lb := &hcloud.LoadBalancer{Name: "a1", Labels: map[string]string{uidLabel: "uid"}, LoadBalancerType: testTypes["lb11"],
		Algorithm:  hcloud.LoadBalancerAlgorithm{Type: "round_robin"},
		PublicNet:  hcloud.LoadBalancerPublicNet{Enabled: true, IPv4: hcloud.LoadBalancerPublicNetIPv4{IP: net.ParseIP("203.0.113.1"), DNSPtr: "static.1.113.0.203.clients.your-server.de"}},
		PrivateNet: []hcloud.LoadBalancerPrivateNet{{Network: &hcloud.Network{ID: 7}, IP: net.ParseIP("10.0.0.2")}},
		Services:   []hcloud.LoadBalancerService{asService(tcpService(80, 30080))},
		Targets:    []hcloud.LoadBalancerTarget{serverTarget(lbTarget{ServerID: 1})},
	}
	if mod != nil {
		mod(lb)
	}
	return lb
}

func TestLBPlan(t *testing.T) {
	want := lbSpec{UID: "uid", Name: "a1", Type: "lb11", NetworkID: 7,
		Services: []hcloud.LoadBalancerAddServiceOpts{tcpService(80, 30080)}, Targets: []lbTarget{{ServerID: 1}}}
	with := func(mod func(s *lbSpec)) lbSpec {
		s := want
		mod(&s)
		return s
	}
	tests := []struct {
		name  string
		want  lbSpec
		have  *hcloud.LoadBalancer
		steps []string
	}{
		{"nothing differs", want, existing(nil), nil},
		{"unset options accept what is there", want, existing(func(lb *hcloud.LoadBalancer) {
			lb.Services[0].HealthCheck.Interval, lb.Services[0].HealthCheck.Retries = 15e9, 3
		}), nil},
		{"adopted: label added, other labels kept, name kept without the annotation", want, existing(func(lb *hcloud.LoadBalancer) {
			lb.Name, lb.Labels = "shop", map[string]string{"team": "a"}
		}), []string{"update name=shop labels=map[hcloud-ccm/service-uid:uid team:a]"}},
		{"renamed by annotation", with(func(s *lbSpec) { s.Name, s.Rename = "b2", true }), existing(nil), []string{"update name=b2 labels=map[hcloud-ccm/service-uid:uid]"}},
		{"type up, algorithm, rDNS", with(func(s *lbSpec) {
			s.Type, s.ChangeType, s.Algorithm, s.IPv4RDNS = "lb21", true, "least_connections", hcloud.Ptr("lb.example.com")
		}), existing(nil), []string{"change_type lb21", "change_algorithm least_connections", "change_dns_ptr 203.0.113.1 lb.example.com"}},
		{"type down is not done", with(func(s *lbSpec) { s.ChangeType = true }), existing(func(lb *hcloud.LoadBalancer) {
			lb.LoadBalancerType = testTypes["lb21"]
		}), nil},
		{"a load balancer does not move", with(func(s *lbSpec) { s.Location = "nbg1" }), existing(func(lb *hcloud.LoadBalancer) {
			lb.Location = &hcloud.Location{Name: "fsn1"}
		}), nil},
		{"rDNS reset only when not the default", with(func(s *lbSpec) { s.IPv4RDNS = hcloud.Ptr("") }), existing(nil), nil},
		{"other network detached, ours attached", want, existing(func(lb *hcloud.LoadBalancer) {
			lb.PrivateNet[0].Network.ID = 8
		}), []string{"attach_to_network 7", "detach_from_network 8"}},
		{"public interface off after the targets move to private IPs", with(func(s *lbSpec) {
			s.PublicInterface, s.Targets = hcloud.Ptr(false), []lbTarget{{ServerID: 1, UsePrivateIP: true}}
		}), existing(nil), []string{"remove_target 1 private=false", "add_target 1 private=true", "disable_public_interface"}},
		{"public interface on first", with(func(s *lbSpec) {
			s.PublicInterface, s.IPv4RDNS = hcloud.Ptr(true), hcloud.Ptr("lb.example.com")
		}), existing(func(lb *hcloud.LoadBalancer) { lb.PublicNet.Enabled = false }), []string{"enable_public_interface", "change_dns_ptr 203.0.113.1 lb.example.com"}},
		{"port moved: delete first, then add", with(func(s *lbSpec) {
			s.Services = []hcloud.LoadBalancerAddServiceOpts{tcpService(8080, 30080)}
		}), existing(nil), []string{"delete_service 80", "add_service 8080"}},
		{"nodePort changed", with(func(s *lbSpec) { s.Services = []hcloud.LoadBalancerAddServiceOpts{tcpService(80, 31000)} }), existing(nil),
			[]string{"update_service 80"}},
		{"targets: remove before add; private IP flips are remove and add; IP targets go, label selectors stay", with(func(s *lbSpec) {
			s.Targets = []lbTarget{{ServerID: 1, UsePrivateIP: true}, {ServerID: 3}}
		}), existing(func(lb *hcloud.LoadBalancer) {
			lb.Targets = append(lb.Targets, serverTarget(lbTarget{ServerID: 2}),
				hcloud.LoadBalancerTarget{Type: hcloud.LoadBalancerTargetTypeIP, IP: &hcloud.LoadBalancerTargetIP{IP: "198.51.100.9"}},
				hcloud.LoadBalancerTarget{Type: hcloud.LoadBalancerTargetTypeLabelSelector, LabelSelector: &hcloud.LoadBalancerTargetLabelSelector{Selector: "x"}})
		}), []string{"remove_target 1 private=false", "remove_target 2 private=false", "remove_ip_target 198.51.100.9",
			"add_target 1 private=true", "add_target 3 private=false"}},
		{"public interface turned off", with(func(s *lbSpec) { s.PublicInterface = hcloud.Ptr(false) }), existing(nil), []string{"disable_public_interface"}},
	}
	wantNotice := map[string]string{"type down is not done": eventTypeDowngrade, "a load balancer does not move": eventLocationKept}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps, notices := lbPlan(tt.want, tt.have, testTypes)
			if want := wantNotice[tt.name]; want != "" && (len(notices) != 1 || notices[0].Reason != want) {
				t.Errorf("notices %v, want one %s", notices, want)
			}
			var got []string
			for _, s := range steps {
				got = append(got, s.String())
			}
			if diff := cmp.Diff(tt.steps, got); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
		})
	}
}
