package model

import "github.com/hcloudlab/hcloud-ccm/fakecloud/internal/netaddr"

// Address rules live in internal/netaddr; these names keep the handlers'
// spelling.
var (
	publicIPv4Range = netaddr.PublicIPv4Range
	publicIPv6Cloud = netaddr.PublicIPv6Cloud
	hostAddr        = netaddr.HostAddr
)
