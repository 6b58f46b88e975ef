package ccm

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

const (
	providerIDPrefix      = "hcloud://"
	robotProviderIDPrefix = "hrobot://"
)

// errRobotServer marks provider IDs of Hetzner Robot (dedicated) servers,
// which this CCM does not manage.
var errRobotServer = errors.New("servers of Hetzner Robot are not supported")

// providerID returns the provider ID of a cloud server.
func providerID(serverID int64) string {
	return providerIDPrefix + strconv.FormatInt(serverID, 10)
}

// serverIDFromProviderID parses "hcloud://<id>".
func serverIDFromProviderID(id string) (int64, error) {
	if strings.HasPrefix(id, robotProviderIDPrefix) || strings.HasPrefix(id, providerIDPrefix+"bm-") {
		return 0, fmt.Errorf("provider ID %q: %w", id, errRobotServer)
	}
	rest, ok := strings.CutPrefix(id, providerIDPrefix)
	if !ok {
		return 0, fmt.Errorf("provider ID %q does not start with %s", id, providerIDPrefix)
	}
	n, err := strconv.ParseInt(rest, 10, 64)
	if err != nil || n < 1 || rest != strconv.FormatInt(n, 10) {
		return 0, fmt.Errorf("provider ID %q: %q is not a server ID", id, rest)
	}
	return n, nil
}
