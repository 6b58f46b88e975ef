// Package robot is a fake Hetzner Robot webservice (robot-ws.your-server.de):
// the dedicated servers' listing and reset endpoints behind HTTP basic
// auth, with the webservice's error envelope, its hourly request limits
// per endpoint and its block of a client IP after failed logins. It never
// touches fakecloud's world: the servers come from Options.Servers.
package robot

import (
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/dedicated"
)

// The stored server and its rules live in internal/dedicated, where the
// world can hold them without HTTP.
type (
	Server = dedicated.Server
	Subnet = dedicated.Subnet
)

// Server statuses and operating statuses.
const (
	StatusReady     = dedicated.StatusReady
	StatusInProcess = dedicated.StatusInProcess

	Running      = dedicated.Running
	ShutOff      = dedicated.ShutOff
	NotSupported = dedicated.NotSupported
)

// listed is a server as GET /server lists it.
type listed struct {
	IPv4      string   `json:"server_ip"`
	IPv6Net   string   `json:"server_ipv6_net"`
	Number    int64    `json:"server_number"`
	Name      string   `json:"server_name"`
	Product   string   `json:"product"`
	DC        string   `json:"dc"`
	Traffic   string   `json:"traffic"`
	Status    string   `json:"status"`
	Cancelled bool     `json:"cancelled"`
	PaidUntil string   `json:"paid_until"`
	IPs       []string `json:"ip"`
	Subnets   []Subnet `json:"subnet"` // null when there is none
}

// detail is a server as GET /server/{server-number} shows it: the listing's
// fields and which functions the server has.
type detail struct {
	listed
	Reset            bool   `json:"reset"`
	Rescue           bool   `json:"rescue"`
	VNC              bool   `json:"vnc"`
	Windows          bool   `json:"windows"`
	Plesk            bool   `json:"plesk"`
	CPanel           bool   `json:"cpanel"`
	WOL              bool   `json:"wol"`
	HotSwap          bool   `json:"hot_swap"`
	LinkedStorageBox *int64 `json:"linked_storagebox"`
}

// resetInfo is a server's reset options; the single-server answer adds
// the operating status.
type resetInfo struct {
	IPv4            string   `json:"server_ip"`
	IPv6Net         string   `json:"server_ipv6_net"`
	Number          int64    `json:"server_number"`
	Type            []string `json:"type"`
	OperatingStatus string   `json:"operating_status,omitempty"`
}

// listedOf is s as GET /server lists it.
func listedOf(s Server) listed {
	ips := s.IPs
	if ips == nil {
		ips = []string{}
	}
	var subnets []Subnet
	if len(s.Subnets) > 0 {
		subnets = s.Subnets
	}
	return listed{IPv4: s.IPv4, IPv6Net: s.IPv6Net, Number: s.Number, Name: s.Name, Product: s.Product, DC: s.DC,
		Traffic: s.Traffic, Status: s.Status, Cancelled: s.Cancelled, PaidUntil: s.PaidUntil, IPs: ips, Subnets: subnets}
}

// detailOf fills the function flags the way a current rack server has them:
// reset as stored, rescue and VNC installation, Wake on LAN, no Windows,
// Plesk or cPanel licence, no hot-swap bays.
func detailOf(s Server) detail {
	return detail{listed: listedOf(s), Reset: s.Reset, Rescue: true, VNC: true, WOL: true, LinkedStorageBox: s.LinkedStorageBox}
}

// resetTypesOf is the reset options: a server whose power state the
// webservice reads also has the power button ones.
func resetTypesOf(s Server) []string {
	if s.OperatingStatus == NotSupported {
		return []string{"sw", "hw", "man"}
	}
	return []string{"sw", "hw", "man", "power", "power_long"}
}
