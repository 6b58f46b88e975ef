package world

import "github.com/hcloudlab/hcloud-ccm/fakecloud/internal/jsontime"

// Duration is a time.Duration written as text ("15s", "2m") in JSON and
// YAML, as rules, events and scenarios use it.
type Duration = jsontime.Duration
