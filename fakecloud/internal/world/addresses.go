package world

import "github.com/hcloudlab/hcloud-ccm/fakecloud/internal/netaddr"

// Address rules live in internal/netaddr; these names keep the handlers'
// spelling.
var (
	publicIPv4Range = netaddr.PublicIPv4Range
	within          = netaddr.Within
	parseIPv4Net    = netaddr.ParseIPv4Net
	hostAddr        = netaddr.HostAddr
	checkRoute      = netaddr.CheckRoute
)
