// Package providerid converts between Hetzner Cloud server IDs and the
// Node provider IDs the official CCM writes (hcloud://<id>), and those of
// dedicated (Robot) servers (hrobot://<number>, formerly hcloud://bm-<number>).
package providerid

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

const (
	prefix      = "hcloud://"
	robotPrefix = "hrobot://"
)

// ErrRobotServer marks provider IDs of Hetzner Robot (dedicated) servers
// where a cloud server's is wanted.
var ErrRobotServer = errors.New("a dedicated (Robot) server, not a cloud server")

// FromServerID returns the provider ID of a cloud server.
func FromServerID(serverID int64) string {
	return prefix + strconv.FormatInt(serverID, 10)
}

// ToServerID parses "hcloud://<id>".
func ToServerID(id string) (int64, error) {
	if IsRobot(id) {
		return 0, fmt.Errorf("provider ID %q: %w", id, ErrRobotServer)
	}
	rest, ok := strings.CutPrefix(id, prefix)
	if !ok {
		return 0, fmt.Errorf("provider ID %q does not start with %s", id, prefix)
	}
	n, err := strconv.ParseInt(rest, 10, 64)
	if err != nil || n < 1 || rest != strconv.FormatInt(n, 10) {
		return 0, fmt.Errorf("provider ID %q: %q is not a server ID", id, rest)
	}
	return n, nil
}

// FromRobotNumber returns the provider ID of a dedicated server.
func FromRobotNumber(number int64) string {
	return robotPrefix + strconv.FormatInt(number, 10)
}

// IsRobot says whether a provider ID is a dedicated server's.
func IsRobot(id string) bool {
	return strings.HasPrefix(id, robotPrefix) || strings.HasPrefix(id, prefix+"bm-")
}

// ToRobotNumber parses "hrobot://<number>" and the legacy
// "hcloud://bm-<number>".
func ToRobotNumber(id string) (int64, error) {
	rest, ok := strings.CutPrefix(id, robotPrefix)
	if !ok {
		if rest, ok = strings.CutPrefix(id, prefix+"bm-"); !ok {
			return 0, fmt.Errorf("provider ID %q does not start with %s", id, robotPrefix)
		}
	}
	n, err := strconv.ParseInt(rest, 10, 64)
	if err != nil || n < 1 || rest != strconv.FormatInt(n, 10) {
		return 0, fmt.Errorf("provider ID %q: %q is not a server number", id, rest)
	}
	return n, nil
}
