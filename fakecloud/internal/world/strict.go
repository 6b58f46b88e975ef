package world

import "github.com/hcloudlab/hcloud-ccm/fakecloud/internal/strict"

// Strict reading lives in internal/strict; these names keep the
// handlers' spelling.
var (
	parseID = strict.ParseID
)
