package model

import "github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world/internal/store"

// Model is the store with what the API makes of it: each resource as the
// API shows it, load balancers' targets, services and health, and the
// traffic they carry. The typed operations build on it.
type Model struct{ *store.State }

// The store's types, as the model names them.
type (
	StoredServer       = store.StoredServer
	StoredLoadBalancer = store.StoredLoadBalancer
)
