// Package script is what a user scripts fakecloud with: seed worlds, the
// realism in force, and scenarios of timed faults, events and rate-limit
// changes. It reads them strictly from YAML or JSON; the server plants,
// sets and schedules them.
package script
