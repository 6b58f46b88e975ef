package fakecloud

import (
	"testing"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/admin"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/netaddr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/strict"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// The tests read exports as the world's snapshot type, and check the
// API's documented limits.
type (
	state       = world.Snapshot
	server      = world.StoredServer
	ipPoolState = world.PoolState
)

// publicIPv4Range is where servers' public IPv4 addresses come from.
var publicIPv4Range = netaddr.PublicIPv4Range

// changesOf is the world's change count, which persistence watches.
func changesOf(t testing.TB, fc *Server) uint64 {
	t.Helper()
	_, changes, err := fc.world.ExportChanged(^uint64(0), false)
	if err != nil {
		t.Fatal(err)
	}
	return changes
}

// maxRoutes is how many routes a network may have, as the API documents.
const maxRoutes = 100

// The tests' names for the API's error model, the wire's limits and the
// strict decoding they check.
type (
	apiError            = apierr.Error
	errorEnvelope       = wire.Envelope
	invalidInputDetails = apierr.InvalidInputDetails
	fieldDetail         = apierr.FieldDetail
)

const (
	codeInvalidInput    = apierr.CodeInvalidInput
	codeJSONError       = apierr.CodeJSONError
	codeRequestTooLarge = apierr.CodeRequestTooLarge
	codeServerError     = apierr.CodeServerError
	maxBody             = wire.MaxBody
	maxSeedBody         = wire.MaxSeedBody
)

var (
	adminBodyLimit = admin.BodyLimit
	checkJSONText  = strict.CheckJSONText
	decodeBytes    = wire.DecodeBytes
	exactKeysOf    = strict.ExactKeysOf
)
