package hcloudapi

import (
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/event"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// The world's types that fakecloud's public API shows.
type (
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
