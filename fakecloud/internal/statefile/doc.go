// Package statefile keeps a fakecloud's world in a file across restarts:
// it locks the file to one process, restores from it, and writes it
// atomically whenever the world changed, retrying a failed write and
// reporting it. It knows the world only as a Source of snapshots.
package statefile
