package world

import "github.com/hcloudlab/hcloud-ccm/fakecloud/internal/realism"

// Realism is how the world reads what the API's documentation leaves
// open; its modes are the realism package's.
type Realism = realism.Realism

// The realism modes.
const (
	RealismOptimistic  = realism.RealismOptimistic
	RealismPessimistic = realism.RealismPessimistic
)

// DefaultActionRetention is how long finished actions stay listed under
// pessimistic realism unless ActionRetention says otherwise.
const DefaultActionRetention = realism.DefaultActionRetention
