package model

import "github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"

// The API's error model lives in internal/apierr; these names keep the
// handlers' spelling.
type (
	apiError = apierr.Error
)

// fieldErrors collects invalid_input messages per field, in order.
type fieldErrors = apierr.Fields

var (
	errorf        = apierr.Errorf
	limitExceeded = apierr.LimitExceeded
	notUnique     = apierr.NotUnique
)
