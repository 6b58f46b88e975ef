package hcloudapi

import (
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/event"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/script"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// The types that fakecloud's public API shows.
type (
	World               = script.World
	SeedPrimaryIP       = script.SeedPrimaryIP
	SeedSSHKey          = script.SeedSSHKey
	SeedCertificate     = script.SeedCertificate
	SeedNetwork         = script.SeedNetwork
	SeedServer          = script.SeedServer
	SeedServerNetwork   = script.SeedServerNetwork
	SeedLoadBalancer    = script.SeedLoadBalancer
	SeedTarget          = script.SeedTarget
	Scenario            = script.Scenario
	Step                = script.Step
	RateLimitSet        = script.RateLimitSet
	Event               = event.Event
	Realism             = world.Realism
	SeedDedicatedServer = world.SeedDedicatedServer
	Duration            = world.Duration
)

// The modes of Realism, and how long finished actions stay listed under
// pessimistic realism by default.
const (
	RealismOptimistic      = world.RealismOptimistic
	RealismPessimistic     = world.RealismPessimistic
	DefaultActionRetention = world.DefaultActionRetention
)

// LoadWorld reads a seed world from a YAML (or JSON) file. Unknown fields
// are refused, so a typo does not silently seed less than intended.
func LoadWorld(path string) (World, error) { return script.LoadWorld(path) }

// ParseWorld parses a seed world from YAML or JSON: an object, so an
// empty or null document is refused rather than read as an empty world.
func ParseWorld(data []byte) (World, error) { return script.ParseWorld(data) }

// ParseScenario reads a scenario from YAML or JSON; unknown fields are refused.
func ParseScenario(data []byte) (Scenario, error) { return script.ParseScenario(data) }
