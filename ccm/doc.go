// Package ccm is the Hetzner Cloud provider for the Kubernetes
// cloud-controller-manager: it initialises Nodes from their servers (cloud
// servers, and dedicated ones through the Robot webservice), tells the
// node lifecycle controller which servers are gone or off, programs routes
// for pod CIDRs into a network, and turns Services of type LoadBalancer
// into Hetzner load balancers, economical with the project's shared API
// budget.
//
// # Starting it
//
// LoadConfig reads the official CCM's HCLOUD_* and ROBOT_* environment
// variables (CheckEnviron names those it does not read), and New builds the
// provider: it serves the probes and metrics, resolves the network and
// lists the servers once. The result is a cloudprovider.Interface for the
// upstream controllers of k8s.io/cloud-provider; cmd/ccm runs them on it.
//
// The provider answers from a server inventory kept fresh through the
// API's action listings, shares one request budget among its callers, and
// never reports a server gone because a request failed. Package
// loadbalancer turns Services into load balancers; package doctor checks a
// cluster against its cloud; package admission judges Services at
// kubectl apply.
//
// The repository's docs/ has the guides and the reference: environment
// variables, flags, annotations, events and metrics.
package ccm
