// Package world is fakecloud's state layer: the simulated project's
// tables and its one lock, unexported behind the typed operations of a
// Tx; the registry of resource kinds, each declared once; the one action
// runner with its locks and the undo of a failed action; snapshots and
// the state file's format.
package world
