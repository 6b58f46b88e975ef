// Package parity is the live API parity kit (make parity): scenarios
// written once with hcloud-go run against api.hetzner.cloud or against
// an in-process fakecloud, their HTTP exchanges are recorded and
// normalised into one snapshot per scenario under testdata/parity, and
// feed checks state whether what the CCM's change feed believes of GET
// /servers/actions holds. A snapshot recorded live must be reproduced by
// fakecloud; a difference is a bug in fakecloud or a deviation to
// document.
package parity
