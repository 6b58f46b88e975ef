package store

import "github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"

// The API's error model lives in internal/apierr; these names keep the
// handlers' spelling.
type (
	apiError = apierr.Error
)

var (
	errorf       = apierr.Errorf
	locked       = apierr.Locked
	invalidField = apierr.InvalidField
)
