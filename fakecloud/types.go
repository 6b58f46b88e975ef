package fakecloud

import "github.com/hcloudlab/hcloud-ccm/fakecloud/internal/hcloudapi"

// ActionFault makes actions of a command fail or run longer.
type ActionFault = hcloudapi.ActionFault

// Counter is the number of requests for one method, route and status.
type Counter = hcloudapi.Counter

// Duration is a time.Duration written as text ("15s", "2m") in JSON and
// YAML, as rules, events and scenarios use it.
type Duration = hcloudapi.Duration

// Event is something that happens to the cloud behind its clients' back.
// Like an operator's change through the Console or the API, every change
// records the actions the real API records for it, already finished.
type Event = hcloudapi.Event

// JournalEntry is one API request as fakecloud saw it.
type JournalEntry = hcloudapi.JournalEntry

// JournalFilter selects journal entries; zero fields match everything.
type JournalFilter = hcloudapi.JournalFilter

// RateLimitSet changes the rate limit: the remaining budget and the refill
// rate in requests per second; an omitted field keeps its value.
type RateLimitSet = hcloudapi.RateLimitSet

// Realism says how fakecloud reads what the API's documentation leaves
// open. The default, optimistic, is the reading clients were built on:
// small IDs in creation order, actions kept for ever, an action for every
// change. Pessimistic takes the unhelpful reading of each, so a client
// that relies on one of them fails its tests here rather than in
// production.
type Realism = hcloudapi.Realism

// Rule is a request fault: which requests it matches and what they get.
// The first active rule that matches a request applies to it.
type Rule = hcloudapi.Rule

// Scenario is a script of cloud trouble: timed steps, each a fault rule,
// an action fault, an event or a rate-limit change. Times count from when
// the scenario is loaded.
type Scenario = hcloudapi.Scenario

// SeedCertificate is an uploaded (certificate, private_key) or managed
// (domain_names) certificate.
type SeedCertificate = hcloudapi.SeedCertificate

// SeedDedicatedServer is a dedicated server of a seed world or an
// add_dedicated_server event; the fields are named as the webservice
// names them, and every one but server_name has a default.
type SeedDedicatedServer = hcloudapi.SeedDedicatedServer

// SeedLoadBalancer is a load balancer; targets name servers.
type SeedLoadBalancer = hcloudapi.SeedLoadBalancer

// SeedNetwork is a network with its subnets and routes.
type SeedNetwork = hcloudapi.SeedNetwork

// SeedPrimaryIP is a primary IP assigned to no server (servers bring
// their own).
type SeedPrimaryIP = hcloudapi.SeedPrimaryIP

// SeedSSHKey is an SSH key of a seed world.
type SeedSSHKey = hcloudapi.SeedSSHKey

// SeedServer is a server; Status "off" seeds it powered off.
type SeedServer = hcloudapi.SeedServer

// SeedServerNetwork attaches a server to a network, optionally at an IP.
type SeedServerNetwork = hcloudapi.SeedServerNetwork

// SeedTarget is a load balancer target: a server by name, a label
// selector or an IP.
type SeedTarget = hcloudapi.SeedTarget

// StateFile is a state file this process holds: locked, restored from,
// and, once Persist is called, kept up to date.
type StateFile = hcloudapi.StateFile

// StateFileStatus tells whether the state file holds what fakecloud
// acknowledged: GET /_fakecloud/state-file and the metrics show it.
type StateFileStatus = hcloudapi.StateFileStatus

// Step is one timed step of a scenario; exactly one of its parts is set.
type Step = hcloudapi.Step

// World is a seed: the networks, servers, load balancers, certificates,
// SSH keys, spare primary IPs and dedicated servers a fakecloud starts
// with. Resources refer to each other by name.
// It is read from YAML (see testdata/worlds) or built in Go.
type World = hcloudapi.World

// DefaultActionRetention is how long finished actions stay listed under
// pessimistic realism unless ActionRetention says otherwise.
const DefaultActionRetention = hcloudapi.DefaultActionRetention

// The modes of Realism.
const (
	RealismOptimistic  = hcloudapi.RealismOptimistic
	RealismPessimistic = hcloudapi.RealismPessimistic
)

// LoadWorld reads a seed world from a YAML (or JSON) file. Unknown fields
// are refused, so a typo does not silently seed less than intended.
func LoadWorld(path string) (World, error) { return hcloudapi.LoadWorld(path) }

// ParseScenario reads a scenario from YAML or JSON; unknown fields are refused.
func ParseScenario(data []byte) (Scenario, error) { return hcloudapi.ParseScenario(data) }

// ParseWorld parses a seed world from YAML or JSON: an object, so an
// empty or null document is refused rather than read as an empty world.
func ParseWorld(data []byte) (World, error) { return hcloudapi.ParseWorld(data) }

// StatusForCode returns the HTTP status the API uses for an error code.
// Codes the API's table does not name (the many resource-specific ones
// such as server_not_attached_to_network) are 422, as the API answers them.
func StatusForCode(code string) int { return hcloudapi.StatusForCode(code) }
