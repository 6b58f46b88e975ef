// Package providerid converts between Hetzner Cloud server IDs and the
// Node provider IDs the official CCM writes (hcloud://<id>).
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

// ErrRobotServer marks provider IDs of Hetzner Robot (dedicated) servers,
// which this CCM does not manage.
var ErrRobotServer = errors.New("servers of Hetzner Robot are not supported")

// FromServerID returns the provider ID of a cloud server.
func FromServerID(serverID int64) string {
	return prefix + strconv.FormatInt(serverID, 10)
}

// ToServerID parses "hcloud://<id>".
func ToServerID(id string) (int64, error) {
	if strings.HasPrefix(id, robotPrefix) || strings.HasPrefix(id, prefix+"bm-") {
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
