package hcloudapi

import "github.com/hcloudlab/hcloud-ccm/fakecloud/internal/strict"

// Strict reading lives in internal/strict; these names keep the
// handlers' spelling.
var (
	parseDecimal  = strict.ParseDecimal
	parseID       = strict.ParseID
	checkJSONText = strict.CheckJSONText
	exactKeysOf   = strict.ExactKeysOf
)
