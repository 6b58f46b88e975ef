package fakecloud

import "github.com/hcloudlab/hcloud-ccm/fakecloud/internal/fidelity"

// Fidelity names the Hetzner Cloud API fakecloud simulates: the OpenAPI
// description, the last changelog entry it follows, and the day its
// catalogue was compared with the public record.
type Fidelity = fidelity.API

// SimulatedAPI is the API this fakecloud is faithful to.
func SimulatedAPI() Fidelity { return fidelity.Simulated }
