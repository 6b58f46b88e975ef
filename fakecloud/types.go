package fakecloud

import (
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/dedicated"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/event"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/jsontime"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/realism"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/scenario"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/seed"
)

// World is a seed: the networks, servers, load balancers, certificates,
// SSH keys, spare primary IPs, placement groups, floating IPs, volumes,
// firewalls and dedicated servers a fakecloud starts with. Resources refer to each other by name.
// It is read from YAML (see testdata/worlds) or built in Go.
type World = seed.World

// SeedPrimaryIP is a primary IP assigned to no server (servers bring
// their own).
type SeedPrimaryIP = seed.SeedPrimaryIP

// SeedPlacementGroup is a placement group of type spread; servers join
// it by name.
type SeedPlacementGroup = seed.SeedPlacementGroup

// SeedFloatingIP is a floating IP, assigned to a seed server by name or
// homed in a location.
type SeedFloatingIP = seed.SeedFloatingIP

// SeedVolume is a volume, attached to a seed server by name or in a
// location.
type SeedVolume = seed.SeedVolume

// SeedFirewall is a firewall with its rules, applied to seed servers by
// name and to label selectors.
type SeedFirewall = seed.SeedFirewall

// SeedZone is a DNS zone: a primary one with its RRSets or a zone file,
// or a secondary one with its primary nameservers.
type SeedZone = seed.SeedZone

// SeedSSHKey is an SSH key of a seed world.
type SeedSSHKey = seed.SeedSSHKey

// SeedCertificate is an uploaded (certificate, private_key) or managed
// (domain_names) certificate.
type SeedCertificate = seed.SeedCertificate

// SeedNetwork is a network with its subnets and routes.
type SeedNetwork = seed.SeedNetwork

// SeedServer is a server; Status "off" seeds it powered off.
type SeedServer = seed.SeedServer

// SeedServerNetwork attaches a server to a network, optionally at an IP.
type SeedServerNetwork = seed.SeedServerNetwork

// SeedLoadBalancer is a load balancer; targets name servers.
type SeedLoadBalancer = seed.SeedLoadBalancer

// SeedTarget is a load balancer target: a server by name, a label
// selector or an IP.
type SeedTarget = seed.SeedTarget

// Scenario is a script of cloud trouble: timed steps, each a fault rule,
// an action fault, an event or a rate-limit change. Times count from when
// the scenario is loaded.
type Scenario = scenario.Scenario

// Step is one timed step of a scenario; exactly one of its parts is set.
type Step = scenario.Step

// RateLimitSet changes the rate limit: the remaining budget and the refill
// rate in requests per second; an omitted field keeps its value.
type RateLimitSet = scenario.RateLimitSet

// Event is something that happens to the cloud behind its clients' back.
// Like an operator's change through the Console or the API, every change
// records the actions the real API records for it, already finished.
type Event = event.Event

// Realism says how fakecloud reads what the API's documentation leaves
// open. The default, optimistic, is the reading clients were built on:
// small IDs in creation order, actions kept for ever, an action for every
// change. Pessimistic takes the unhelpful reading of each, so a client
// that relies on one of them fails its tests here rather than in
// production.
type Realism = realism.Realism

// SeedDedicatedServer is a dedicated server of a seed world or an
// add_dedicated_server event; the fields are named as the webservice
// names them, and every one but server_name has a default.
type SeedDedicatedServer = dedicated.SeedDedicatedServer

// Duration is a time.Duration written as text ("15s", "2m") in JSON and
// YAML, as rules, events and scenarios use it.
type Duration = jsontime.Duration

// The modes of Realism.
const (
	RealismOptimistic  = realism.RealismOptimistic
	RealismPessimistic = realism.RealismPessimistic
)

// DefaultActionRetention is how long finished actions stay listed under
// pessimistic realism unless ActionRetention says otherwise.
const DefaultActionRetention = realism.DefaultActionRetention

// LoadWorld reads a seed world from a YAML (or JSON) file. Unknown fields
// are refused, so a typo does not silently seed less than intended.
func LoadWorld(path string) (World, error) { return seed.LoadWorld(path) }

// ParseWorld parses a seed world from YAML or JSON: an object, so an
// empty or null document is refused rather than read as an empty world.
func ParseWorld(data []byte) (World, error) { return seed.ParseWorld(data) }

// ParseScenario reads a scenario from YAML or JSON; unknown fields are refused.
func ParseScenario(data []byte) (Scenario, error) { return scenario.ParseScenario(data) }
