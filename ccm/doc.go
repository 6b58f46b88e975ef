// Package ccm is the Hetzner Cloud provider for the Kubernetes
// cloud-controller-manager: nodes, node lifecycle, routes and load
// balancers, economical with the project's shared API budget.
package ccm
