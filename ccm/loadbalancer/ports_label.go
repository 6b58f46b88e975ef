package loadbalancer

import (
	"maps"
	"strconv"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// portsLabel records, on the load balancer of a Service that keeps other
// services (keep-other-services), the listen ports the CCM added, joined
// by dots: those are the CCM's to change and delete.
const portsLabel = "hcloud-ccm/ports"

// maxLabelValue is the longest label value the API takes.
const maxLabelValue = 63

// portsValue is the ports label for services.
func portsValue(services []hcloud.LoadBalancerAddServiceOpts) string {
	ports := make([]string, 0, len(services))
	for _, s := range services {
		ports = append(ports, strconv.Itoa(*s.ListenPort))
	}
	return strings.Join(ports, ".")
}

// wantLabels are have with the Service's UID and, when it keeps other
// services, the ports the CCM adds; without, no ports label.
func wantLabels(want lbSpec, have map[string]string) map[string]string {
	l := maps.Clone(have)
	if l == nil {
		l = map[string]string{}
	}
	l[uidLabel] = want.UID
	if want.KeepOthers {
		l[portsLabel] = portsValue(want.Services)
	} else {
		delete(l, portsLabel)
	}
	return l
}

// kept reports whether a service on a port the Service does not declare
// stays: with keep-other-services, unless the ports label says the CCM
// added it.
func kept(want lbSpec, labels map[string]string) func(port int) bool {
	if !want.KeepOthers {
		return func(int) bool { return false }
	}
	owned := map[int]bool{}
	for p := range strings.SplitSeq(labels[portsLabel], ".") {
		if n, err := strconv.Atoi(p); err == nil {
			owned[n] = true
		}
	}
	return func(port int) bool { return !owned[port] }
}
