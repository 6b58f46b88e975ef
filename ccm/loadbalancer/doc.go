// Package loadbalancer turns Services of type LoadBalancer into Hetzner
// Cloud load balancers for the cloud provider: it parses the
// load-balancer.hetzner.cloud/* annotations, plans the difference between
// the desired and the known load balancer, and sends only that, following
// the actions it starts.
package loadbalancer
