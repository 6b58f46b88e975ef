//go:build race

package world

// raceEnabled: the race detector is on (go test -race).
const raceEnabled = true
