// Package admission is the validating admission webhook for Services: it
// refuses a LoadBalancer Service whose load-balancer.hetzner.cloud/*
// annotations the CCM's own sync would refuse, with that sync's code, and
// names the annotation and the values it accepts.
package admission
