package adminclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

var _ error = (*Error)(nil)

// Error is an admin API answer other than 2xx. Code and Message come from
// the API's error envelope; an answer without one keeps its body in Body.
type Error struct {
	Method     string
	Path       string // under /_fakecloud, with its query
	StatusCode int
	Code       hcloud.ErrorCode
	Message    string
	Body       string
}

func (e *Error) Error() string {
	if e.Code != "" {
		return fmt.Sprintf("%s %s: %s: %s", e.Method, e.Path, e.Code, e.Message)
	}
	return fmt.Sprintf("%s %s: HTTP %d: %s", e.Method, e.Path, e.StatusCode, e.Body)
}

// IsError reports whether err is an admin API error with this code.
func IsError(err error, code hcloud.ErrorCode) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

func newError(method, path string, status int, body []byte) *Error {
	e := &Error{Method: method, Path: path, StatusCode: status}
	var env schema.ErrorResponse
	if json.Unmarshal(body, &env) == nil && env.Error.Code != "" {
		e.Code, e.Message = hcloud.ErrorCode(env.Error.Code), env.Error.Message
	} else {
		e.Body = strings.TrimSpace(string(body))
	}
	return e
}
