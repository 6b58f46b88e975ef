package dedicated

// SeedDedicatedServer is a dedicated server of a seed world or an
// add_dedicated_server event; the fields are named as the webservice
// names them, and every one but server_name has a default.
type SeedDedicatedServer struct {
	Number           int64    `json:"server_number,omitempty"`   // default: the next number, from 2000001
	Name             string   `json:"server_name"`               //
	IPv4             string   `json:"server_ip,omitempty"`       // default: the next free address of 203.0.113.0/24
	IPv6Net          string   `json:"server_ipv6_net,omitempty"` // default: 3fff:<number>::, a documentation prefix
	Product          string   `json:"product,omitempty"`         // default AX41-NVMe
	DC               string   `json:"dc,omitempty"`              // default FSN1-DC14
	Traffic          string   `json:"traffic,omitempty"`         // default unlimited
	Status           string   `json:"status,omitempty"`          // ready (default) or "in process"
	Cancelled        bool     `json:"cancelled,omitempty"`
	PaidUntil        string   `json:"paid_until,omitempty"` // default: the last day of the month
	IPs              []string `json:"ip,omitempty"`         // default [server_ip]
	Subnets          []Subnet `json:"subnet,omitempty"`     // default the IPv6 /64
	Reset            *bool    `json:"reset,omitempty"`      // default true
	LinkedStorageBox *int64   `json:"linked_storagebox,omitempty"`
	// OperatingStatus is running (default), "shut off", or "not supported"
	// for a tower server, whose power state the webservice cannot read.
	OperatingStatus string `json:"operating_status,omitempty"`
}
