// Package seed reads seed worlds: the named resources a fakecloud starts
// with, read strictly from YAML or JSON; the server plants them through
// the API's own operations.
package seed

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/dedicated"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/strict"
)

// World is a seed: the networks, servers, load balancers, certificates,
// SSH keys, spare primary IPs, placement groups, floating IPs, volumes,
// firewalls, DNS zones and dedicated servers a fakecloud starts with. Resources refer to each other by name.
// It is read from YAML (see testdata/worlds) or built in Go.
type World struct {
	SSHKeys       []SeedSSHKey       `json:"ssh_keys,omitempty"`
	Certificates  []SeedCertificate  `json:"certificates,omitempty"`
	Networks      []SeedNetwork      `json:"networks,omitempty"`
	Servers       []SeedServer       `json:"servers,omitempty"`
	LoadBalancers []SeedLoadBalancer `json:"load_balancers,omitempty"`
	PrimaryIPs    []SeedPrimaryIP    `json:"primary_ips,omitempty"`
	// PlacementGroups are spread groups; servers join one by name.
	PlacementGroups []SeedPlacementGroup `json:"placement_groups,omitempty"`
	// FloatingIPs are floating IPs, each homed in a location or assigned
	// to a server of the seed by name.
	FloatingIPs []SeedFloatingIP `json:"floating_ips,omitempty"`
	// Volumes are volumes, each in a location or attached to a server of
	// the seed by name.
	Volumes []SeedVolume `json:"volumes,omitempty"`
	// Firewalls are firewalls with their rules, applied to servers of the
	// seed by name and to label selectors.
	Firewalls []SeedFirewall `json:"firewalls,omitempty"`
	// Zones are DNS zones: primary ones with their RRSets or a zone
	// file, secondary ones with their primary nameservers.
	Zones []SeedZone `json:"zones,omitempty"`
	// DedicatedServers are the Robot webservice's servers.
	DedicatedServers []dedicated.SeedDedicatedServer `json:"dedicated_servers,omitempty"`
}

// SeedPrimaryIP is a primary IP assigned to no server (servers bring
// their own).
type SeedPrimaryIP struct {
	Name     string            `json:"name"`
	Type     string            `json:"type"`               // ipv4 or ipv6
	Location string            `json:"location,omitempty"` // default fsn1
	Labels   map[string]string `json:"labels,omitempty"`
}

// SeedPlacementGroup is a placement group of type spread.
type SeedPlacementGroup struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels,omitempty"`
}

// SeedFloatingIP is a floating IP: assigned to a server of the seed, or
// homed in a location (fsn1 by default).
type SeedFloatingIP struct {
	Name         string            `json:"name"`
	Type         string            `json:"type"`                    // ipv4 or ipv6
	Server       string            `json:"server,omitempty"`        // a seed server's name
	HomeLocation string            `json:"home_location,omitempty"` // default the server's, or fsn1
	Description  string            `json:"description,omitempty"`
	Labels       map[string]string `json:"labels,omitempty"`
	Protected    bool              `json:"protected,omitempty"` // delete protection
	Blocked      bool              `json:"blocked,omitempty"`   // blocked by the provider, as for abuse
}

// SeedVolume is a volume: attached to a server of the seed (and in its
// location), or in a location (fsn1 by default).
type SeedVolume struct {
	Name      string            `json:"name"`
	Size      int               `json:"size"`               // GB, 10 to 10240
	Server    string            `json:"server,omitempty"`   // a seed server's name
	Location  string            `json:"location,omitempty"` // without server; default fsn1
	Format    string            `json:"format,omitempty"`   // xfs or ext4; none by default
	Labels    map[string]string `json:"labels,omitempty"`
	Protected bool              `json:"protected,omitempty"` // delete protection
}

// SeedFirewall is a firewall: its rules exactly as the API takes them,
// applied to seed servers by name and to label selectors.
type SeedFirewall struct {
	Name           string                       `json:"name"`
	Labels         map[string]string            `json:"labels,omitempty"`
	Rules          []schema.FirewallRuleRequest `json:"rules,omitempty"`
	Servers        []string                     `json:"servers,omitempty"`         // seed servers' names
	LabelSelectors []string                     `json:"label_selectors,omitempty"` // e.g. role=worker
}

// SeedZone is a DNS zone, taken as POST /zones takes it: a primary one
// (the default) gets the SOA and the assigned nameservers' NS beside
// its RRSets, or holds what its zone file holds.
type SeedZone struct {
	Name               string                                      `json:"name"`
	Mode               string                                      `json:"mode,omitempty"` // primary (default) or secondary
	TTL                int                                         `json:"ttl,omitempty"`  // default 3600
	Labels             map[string]string                           `json:"labels,omitempty"`
	Protected          bool                                        `json:"protected,omitempty"` // delete protection
	RRSets             []schema.ZoneCreateRequestRRSet             `json:"rrsets,omitempty"`
	Zonefile           string                                      `json:"zonefile,omitempty"`
	PrimaryNameservers []schema.ZoneCreateRequestPrimaryNameserver `json:"primary_nameservers,omitempty"`
}

// SeedSSHKey is an SSH key of a seed world.
type SeedSSHKey struct {
	Name      string            `json:"name"`
	PublicKey string            `json:"public_key"`
	Labels    map[string]string `json:"labels,omitempty"`
}

// SeedCertificate is an uploaded (certificate, private_key) or managed
// (domain_names) certificate.
type SeedCertificate struct {
	Name        string            `json:"name"`
	Type        string            `json:"type,omitempty"`
	Certificate string            `json:"certificate,omitempty"`
	PrivateKey  string            `json:"private_key,omitempty"`
	DomainNames []string          `json:"domain_names,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
}

// SeedNetwork is a network with its subnets and routes.
type SeedNetwork struct {
	Name    string                 `json:"name"`
	IPRange string                 `json:"ip_range"`
	Subnets []schema.NetworkSubnet `json:"subnets,omitempty"`
	Routes  []schema.NetworkRoute  `json:"routes,omitempty"`
	Labels  map[string]string      `json:"labels,omitempty"`
}

// SeedServer is a server; Status "off" seeds it powered off.
type SeedServer struct {
	Name       string              `json:"name"`
	ServerType string              `json:"server_type,omitempty"` // default cx23
	Image      string              `json:"image,omitempty"`       // default ubuntu-24.04
	Location   string              `json:"location,omitempty"`    // default fsn1
	Status     string              `json:"status,omitempty"`      // running (default) or off
	Labels     map[string]string   `json:"labels,omitempty"`
	PublicIPv4 *bool               `json:"public_ipv4,omitempty"` // default true
	PublicIPv6 *bool               `json:"public_ipv6,omitempty"` // default true
	Networks   []SeedServerNetwork `json:"networks,omitempty"`
	Protected  bool                `json:"protected,omitempty"`
	// PlacementGroup names the seed's placement group the server is
	// created in.
	PlacementGroup string `json:"placement_group,omitempty"`
}

// SeedServerNetwork attaches a server to a network, optionally at an IP.
type SeedServerNetwork struct {
	Network  string   `json:"network"`
	IP       string   `json:"ip,omitempty"`
	AliasIPs []string `json:"alias_ips,omitempty"`
}

// SeedLoadBalancer is a load balancer; targets name servers.
type SeedLoadBalancer struct {
	Name            string            `json:"name"`
	Type            string            `json:"type,omitempty"` // default lb11
	Location        string            `json:"location,omitempty"`
	NetworkZone     string            `json:"network_zone,omitempty"`
	Algorithm       string            `json:"algorithm,omitempty"`
	Network         string            `json:"network,omitempty"`
	PublicInterface *bool             `json:"public_interface,omitempty"`
	Labels          map[string]string `json:"labels,omitempty"`
	Services        []json.RawMessage `json:"services,omitempty"` // as the API's services
	Targets         []SeedTarget      `json:"targets,omitempty"`
	Protected       bool              `json:"protected,omitempty"`
}

// SeedTarget is a load balancer target: a server by name, a label
// selector or an IP.
type SeedTarget struct {
	Server        string `json:"server,omitempty"`
	LabelSelector string `json:"label_selector,omitempty"`
	IP            string `json:"ip,omitempty"`
	UsePrivateIP  bool   `json:"use_private_ip,omitempty"`
}

// LoadWorld reads a seed world from a YAML (or JSON) file. Unknown fields
// are refused, so a typo does not silently seed less than intended.
func LoadWorld(path string) (World, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return World{}, fmt.Errorf("read seed world: %w", err)
	}
	return ParseWorld(data)
}

// ParseWorld parses a seed world from YAML or JSON: an object, so an
// empty or null document is refused rather than read as an empty world.
func ParseWorld(data []byte) (World, error) {
	var w World
	if err := strict.Object(data, &w); err != nil {
		return World{}, fmt.Errorf("parse seed world: %w", err)
	}
	return w, nil
}
