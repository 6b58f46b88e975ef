package annotation

import "time"

// Defaults are the HCLOUD_LOAD_BALANCERS_* defaults that
// Service annotations override. Pointer fields are unset unless the
// variable is: the API's own default then applies, as with the official CCM.
type Defaults struct {
	Enabled               bool
	Location              string
	NetworkZone           string
	DisablePrivateIngress bool
	UsePrivateIP          bool
	DisableIPv6           bool
	DisablePublicNetwork  *bool
	UsesProxyProtocol     *bool
	PrivateSubnetIPRange  string
	AlgorithmType         string // empty: not sent
	Type                  string
	TypeSet               bool          // HCLOUD_LOAD_BALANCERS_TYPE is set, to any value (lb11 too)
	HealthCheckInterval   time.Duration // 0: not sent
	HealthCheckTimeout    time.Duration
	HealthCheckRetries    *int
	HealthCheckKubeProxy  bool   // check kube-proxy's /healthz for Cluster Services
	TargetAddressFamily   string // FamilyIPv4, FamilyIPv6 or FamilyDualStack; empty: FamilyIPv4
}

// The address families of TargetAddressFamily.
const (
	FamilyIPv4      = "ipv4"
	FamilyIPv6      = "ipv6"
	FamilyDualStack = "dualstack"
)
