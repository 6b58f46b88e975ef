package hcloudapi

import (
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/admin"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
)

// Reading and writing HTTP lives in internal/wire; these names keep the
// handlers' spelling until the handlers leave this package.
var (
	writeError       = wire.WriteError
	writeErrorStatus = wire.WriteErrorStatus
	decode           = wire.Decode
	decodeBytes      = wire.DecodeBytes
	limitBody        = wire.LimitBody
	apiBodyLimit     = wire.APIBodyLimit
	adminBodyLimit   = admin.BodyLimit
	size             = wire.Size
	strictQuery      = wire.StrictQuery
	apiMultiValued   = wire.APIMultiValued
)

type errorEnvelope = wire.Envelope

const (
	maxBody     = wire.MaxBody
	maxSeedBody = wire.MaxSeedBody
)
