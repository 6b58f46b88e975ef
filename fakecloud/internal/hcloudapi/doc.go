// Package hcloudapi is, for now, fakecloud's implementation behind its
// public API: the Hetzner Cloud API's routes and handlers, the admin API,
// seeding and the simulated project's state, which moves out to
// internal/world. Package fakecloud re-exports what a user needs.
package hcloudapi
