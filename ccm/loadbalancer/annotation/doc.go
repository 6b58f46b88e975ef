// Package annotation reads what a LoadBalancer Service's annotations
// (load-balancer.hetzner.cloud/*, with the official CCM's names and value
// formats) ask of its load balancer, over the HCLOUD_LOAD_BALANCERS_*
// defaults: every key and what it accepts (keys.go, from which the
// annotation reference is generated), the options of the Service and of
// each of its ports, and every mistake as an *Error naming the key. It
// reads no cloud and no cluster.
package annotation
