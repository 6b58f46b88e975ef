package store

import "github.com/hcloudlab/hcloud-ccm/fakecloud/internal/netaddr"

// Address rules live in internal/netaddr; these names keep the handlers'
// spelling.
var (
	publicIPv4Range = netaddr.PublicIPv4Range
	publicIPv6Cloud = netaddr.PublicIPv6Cloud
	publicIPv6Base  = netaddr.PublicIPv6Base
	lastAddr        = netaddr.LastAddr
	within          = netaddr.Within
	parseIPv4Net    = netaddr.ParseIPv4Net
)
