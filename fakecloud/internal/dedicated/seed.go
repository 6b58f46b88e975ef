package dedicated

import (
	"cmp"
	"fmt"
)

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

// FromSeed is the seed with its defaults. The world picks number, ipv4
// and paidUntil when the seed leaves them out; they are used only then.
func FromSeed(sd SeedDedicatedServer, number int64, ipv4, paidUntil string) Server {
	d := Server{Number: cmp.Or(sd.Number, number), Name: sd.Name, IPv4: cmp.Or(sd.IPv4, ipv4), IPv6Net: sd.IPv6Net,
		Product: cmp.Or(sd.Product, "AX41-NVMe"), DC: cmp.Or(sd.DC, "FSN1-DC14"), Traffic: cmp.Or(sd.Traffic, "unlimited"),
		Status: cmp.Or(sd.Status, StatusReady), Cancelled: sd.Cancelled, PaidUntil: cmp.Or(sd.PaidUntil, paidUntil), IPs: sd.IPs,
		Subnets: sd.Subnets, Reset: sd.Reset == nil || *sd.Reset, LinkedStorageBox: sd.LinkedStorageBox,
		OperatingStatus: cmp.Or(sd.OperatingStatus, Running)}
	if d.IPv6Net == "" && d.Number > 0 {
		d.IPv6Net = fmt.Sprintf("3fff:%x:%x::", d.Number>>16&0xfff, d.Number&0xffff)
	}
	if d.IPs == nil {
		d.IPs = []string{d.IPv4}
	}
	if d.Subnets == nil && d.IPv6Net != "" {
		d.Subnets = []Subnet{{IP: d.IPv6Net, Mask: "64"}}
	}
	return d
}

// Check reports the problems of the fields the seed sets, which no world
// can change: what an add_dedicated_server event is refused for wherever
// it comes from, checked before a scenario holding it loads.
func (sd SeedDedicatedServer) Check() error { return Checkable(sd).Check() }

// Checkable is the seed with stand-ins for what the world picks (a
// number, a free address, a date), to judge what the seed itself sets.
func Checkable(sd SeedDedicatedServer) Server { return FromSeed(sd, 1, "203.0.113.2", "2000-01-31") }
