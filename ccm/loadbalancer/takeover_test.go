package loadbalancer

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// officialLB makes the load balancer the official CCM makes for svc, in
// its order (hcops.LoadBalancerOps: Create with name, type, label and
// location; attach to the network; add targets; add one service per port
// with a TCP health check on the node port and the API's defaults).
func (c *lbCluster) officialLB(t *testing.T, svc *corev1.Service, privateIP bool) *hcloud.LoadBalancer {
	t.Helper()
	ctx := t.Context()
	res, _, err := c.Client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{
		Name: cloudprovider.DefaultLoadBalancerName(svc), LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"},
		Location: &hcloud.Location{Name: "fsn1"}, Labels: map[string]string{"hcloud-ccm/service-uid": string(svc.UID)}})
	if err != nil {
		t.Fatal(err)
	}
	lb := res.LoadBalancer
	wait := func(a *hcloud.Action, _ *hcloud.Response, err error) {
		t.Helper()
		if err == nil {
			err = c.Client.Action.WaitFor(ctx, a)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	wait(c.Client.LoadBalancer.AttachToNetwork(ctx, lb, hcloud.LoadBalancerAttachToNetworkOpts{Network: &hcloud.Network{ID: c.networkID}}))
	for _, id := range serverIDs(c.nodes) {
		wait(c.Client.LoadBalancer.AddServerTarget(ctx, lb, hcloud.LoadBalancerAddServerTargetOpts{
			Server: &hcloud.Server{ID: id}, UsePrivateIP: hcloud.Ptr(privateIP)}))
	}
	for _, p := range svc.Spec.Ports {
		wait(c.Client.LoadBalancer.AddService(ctx, lb, hcloud.LoadBalancerAddServiceOpts{
			Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: hcloud.Ptr(int(p.Port)), DestinationPort: hcloud.Ptr(int(p.NodePort)),
			Proxyprotocol: hcloud.Ptr(false), HealthCheck: &hcloud.LoadBalancerAddServiceOptsHealthCheck{
				Protocol: hcloud.LoadBalancerServiceProtocolTCP, Port: hcloud.Ptr(int(p.NodePort))}}))
	}
	return lb
}

// officialIngress is the status the official CCM writes (its
// buildLoadBalancerStatusIngress): public IPv4, IPv6, then each private IP.
func officialIngress(lb *hcloud.LoadBalancer) []corev1.LoadBalancerIngress {
	vip := corev1.LoadBalancerIPModeVIP
	ingress := []corev1.LoadBalancerIngress{{IP: lb.PublicNet.IPv4.IP.String(), IPMode: &vip}, {IP: lb.PublicNet.IPv6.IP.String(), IPMode: &vip}}
	for _, pn := range lb.PrivateNet {
		ingress = append(ingress, corev1.LoadBalancerIngress{IP: pn.IP.String(), IPMode: &vip})
	}
	return ingress
}

// A cluster moved over from the official CCM keeps its load balancers as
// they are: this CCM finds each by its label, reads it, and writes nothing.
func TestLBTakenOverFromTheOfficialCCMUnchanged(t *testing.T) {
	for _, tc := range []struct {
		name        string
		annotations []string
		privateIP   bool
	}{
		{"defaults", nil, false},
		{"private IPs", []string{"use-private-ip", "true"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newLBCluster(t, 3, fakecloud.Options{})
			svc := lbService("legacy", []int32{80, 443}, tc.annotations...)
			lb := c.officialLB(t, svc, tc.privateIP)
			c.FC.ResetCounters()
			before := len(c.FC.Journal(fakecloud.JournalFilter{}))
			st, n := c.ensure(t, svc, c.nodes)
			for _, e := range c.FC.Journal(fakecloud.JournalFilter{})[before:] {
				if e.Method != "GET" {
					t.Errorf("the takeover wrote to the cloud: %s %s", e.Method, e.Path)
				}
			}
			if n > 2 {
				t.Errorf("the takeover cost %d requests, want at most 2 (find by label, read)", n)
			}
			lb, _, err := c.Client.LoadBalancer.GetByID(t.Context(), lb.ID)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(officialIngress(lb), st.Ingress); d != "" {
				t.Errorf("status differs from the official CCM's (-official +ours):\n%s", d)
			}
			if all := c.LoadBalancers(t); len(all) != 1 || all[0].ID != lb.ID || !strings.HasPrefix(all[0].Name, "a") {
				t.Errorf("load balancers after the takeover: %d, want the official one (%d) only", len(all), lb.ID)
			}
			// An update with nothing changed writes nothing either.
			if n := c.update(t, svc, c.nodes); n != 0 {
				t.Errorf("a no-op update after the takeover cost %d requests", n)
			}
		})
	}
}
