// Package world is fakecloud's implementation behind its public API: the
// simulated project's state and, until they have packages of their own,
// the API's routes and handlers, the admin API and the state file.
// Package fakecloud re-exports what a user needs.
package world
