package ccm

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

// loadBalancerClass reads HCLOUD_LOAD_BALANCERS_CLASS and
// HCLOUD_LOAD_BALANCERS_SERVE_WITHOUT_CLASS.
func loadBalancerClass(r *envReader) loadbalancer.Class {
	c := loadbalancer.Class{
		Name:         strings.TrimSpace(r.str("HCLOUD_LOAD_BALANCERS_CLASS", loadbalancer.DefaultClass)),
		WithoutClass: r.boolean("HCLOUD_LOAD_BALANCERS_SERVE_WITHOUT_CLASS", true),
	}
	if msgs := validation.IsQualifiedName(c.Name); len(msgs) > 0 {
		r.errs = append(r.errs, fmt.Errorf("HCLOUD_LOAD_BALANCERS_CLASS=%q: want a loadBalancerClass such as %s or example.com/internal: %s",
			c.Name, loadbalancer.DefaultClass, strings.Join(msgs, "; ")))
		c.Name = loadbalancer.DefaultClass
	}
	return c
}

// loadBalancerDefaults reads the HCLOUD_LOAD_BALANCERS_* variables.
func loadBalancerDefaults(r *envReader) annotation.Defaults {
	d := annotation.Defaults{
		Enabled:               r.boolean("HCLOUD_LOAD_BALANCERS_ENABLED", true),
		Location:              r.str("HCLOUD_LOAD_BALANCERS_LOCATION", ""),
		NetworkZone:           r.str("HCLOUD_LOAD_BALANCERS_NETWORK_ZONE", ""),
		DisablePrivateIngress: r.boolean("HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS", false),
		UsePrivateIP:          r.boolean("HCLOUD_LOAD_BALANCERS_USE_PRIVATE_IP", false),
		DisableIPv6:           r.boolean("HCLOUD_LOAD_BALANCERS_DISABLE_IPV6", false),
		DisablePublicNetwork:  r.optionalBool("HCLOUD_LOAD_BALANCERS_DISABLE_PUBLIC_NETWORK"),
		UsesProxyProtocol:     r.optionalBool("HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL"),
		PrivateSubnetIPRange:  r.str("HCLOUD_LOAD_BALANCERS_PRIVATE_SUBNET_IP_RANGE", ""),
		AlgorithmType:         strings.ToLower(r.str("HCLOUD_LOAD_BALANCERS_ALGORITHM_TYPE", "")),
		Type:                  r.str("HCLOUD_LOAD_BALANCERS_TYPE", "lb11"),
		TypeSet:               strings.TrimSpace(r.getenv("HCLOUD_LOAD_BALANCERS_TYPE")) != "",
		HealthCheckInterval:   r.duration("HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL", 0),
		HealthCheckTimeout:    r.duration("HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_TIMEOUT", 0),
		HealthCheckRetries:    r.optionalInt("HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES"),
		HealthCheckKubeProxy:  r.boolean("HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_KUBE_PROXY", false),
		TargetAddressFamily: r.oneOf("HCLOUD_LOAD_BALANCERS_TARGET_ADDRESS_FAMILY", annotation.FamilyIPv4,
			annotation.FamilyIPv4, annotation.FamilyIPv6, annotation.FamilyDualStack),
	}
	if d.Location != "" && d.NetworkZone != "" {
		r.errs = append(r.errs, errors.New("HCLOUD_LOAD_BALANCERS_LOCATION and HCLOUD_LOAD_BALANCERS_NETWORK_ZONE are both set: set only one"))
	}
	if d.AlgorithmType != "" && d.AlgorithmType != "round_robin" && d.AlgorithmType != "least_connections" {
		r.errs = append(r.errs, fmt.Errorf("HCLOUD_LOAD_BALANCERS_ALGORITHM_TYPE=%q: want round_robin or least_connections", d.AlgorithmType))
	}
	if err := annotation.CheckDefaults(d); err != nil {
		r.errs = append(r.errs, err)
	}
	if d.PrivateSubnetIPRange != "" {
		if _, err := netip.ParsePrefix(d.PrivateSubnetIPRange); err != nil {
			r.errs = append(r.errs, fmt.Errorf("HCLOUD_LOAD_BALANCERS_PRIVATE_SUBNET_IP_RANGE=%q: want a CIDR such as 10.0.1.0/24", d.PrivateSubnetIPRange))
		}
	}
	return d
}

// Target health and traffic: their bounds, in one place for the reader and
// the reference.
const (
	defaultHealthInterval = 5 * time.Minute
	minHealthInterval     = time.Second
	maxHealthInterval     = 24 * time.Hour
)

// loadBalancerHealth reads HCLOUD_LOAD_BALANCERS_TARGET_HEALTH_INTERVAL
// (0 turns it off) and HCLOUD_LOAD_BALANCERS_TRAFFIC_METRICS_REQUESTS.
func loadBalancerHealth(r *envReader) (interval time.Duration, trafficPerHour int) {
	const name = "HCLOUD_LOAD_BALANCERS_TARGET_HEALTH_INTERVAL"
	interval = defaultHealthInterval
	if v := strings.TrimSpace(r.getenv(name)); v == "0" {
		interval = 0
	} else if v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < minHealthInterval || d > maxHealthInterval {
			r.errs = append(r.errs, fmt.Errorf("%s=%q: want 0 (off) or a duration from %s to %s, such as 5m", name, v, minHealthInterval, maxHealthInterval))
		} else {
			interval = d
		}
	}
	trafficPerHour = r.integer("HCLOUD_LOAD_BALANCERS_TRAFFIC_METRICS_REQUESTS", 0)
	if trafficPerHour > loadbalancer.MaxTrafficRequests {
		r.errs = append(r.errs, fmt.Errorf("HCLOUD_LOAD_BALANCERS_TRAFFIC_METRICS_REQUESTS=%d: want 0 (off) to %d requests an hour, a quarter of the project's %d",
			trafficPerHour, loadbalancer.MaxTrafficRequests, projectLimit))
		trafficPerHour = 0
	}
	return interval, trafficPerHour
}
