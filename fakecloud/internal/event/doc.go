// Package event is what fakecloud's events are: the changes that happen
// to the cloud behind its clients' back (a server deleted or powered off,
// a target's health, a lock, a dedicated server's life), the fields each
// type reads, and the check that refuses a malformed one before anything
// happens. The world applies them.
package event
