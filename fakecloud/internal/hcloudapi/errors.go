package hcloudapi

import "github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"

// The API's error model lives in internal/apierr; these names keep the
// handlers' spelling.
type (
	apiError            = apierr.Error
	invalidInputDetails = apierr.InvalidInputDetails
	fieldDetail         = apierr.FieldDetail
)

// fieldErrors collects invalid_input messages per field, in order.
type fieldErrors = apierr.Fields

const (
	codeJSONError             = apierr.CodeJSONError
	codeInvalidInput          = apierr.CodeInvalidInput
	codeUnauthorized          = apierr.CodeUnauthorized
	codeForbidden             = apierr.CodeForbidden
	codeNotFound              = apierr.CodeNotFound
	codeMethodNotAllowed      = apierr.CodeMethodNotAllowed
	codeUniquenessError       = apierr.CodeUniquenessError
	codeConflict              = apierr.CodeConflict
	codeResourceUnavailable   = apierr.CodeResourceUnavailable
	codeResourceLimitExceeded = apierr.CodeResourceLimitExceeded
	codeLocked                = apierr.CodeLocked
	codeProtected             = apierr.CodeProtected
	codeRateLimitExceeded     = apierr.CodeRateLimitExceeded
	codeServerError           = apierr.CodeServerError
	codeUnsupportedError      = apierr.CodeUnsupportedError
	codeServiceError          = apierr.CodeServiceError
	codeRequestTooLarge       = apierr.CodeRequestTooLarge
)

var (
	errorf       = apierr.Errorf
	notFound     = apierr.NotFound
	invalidField = apierr.InvalidField
)

// StatusForCode returns the HTTP status the API uses for an error code.
// Codes the API's table does not name (the many resource-specific ones
// such as server_not_attached_to_network) are 422, as the API answers them.
func StatusForCode(code string) int { return apierr.Status(code) }
