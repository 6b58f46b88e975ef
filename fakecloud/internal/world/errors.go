package world

import "github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"

// The API's error model lives in internal/apierr; these names keep the
// handlers' spelling.
type (
	apiError = apierr.Error
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
	errorf        = apierr.Errorf
	notFound      = apierr.NotFound
	locked        = apierr.Locked
	protectedErr  = apierr.Protected
	invalidField  = apierr.InvalidField
	limitExceeded = apierr.LimitExceeded
	notUnique     = apierr.NotUnique
)
