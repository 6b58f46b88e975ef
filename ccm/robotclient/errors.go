package robotclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Error codes of the webservice the CCM acts on.
const (
	CodeUnauthorized      = "UNAUTHORIZED"
	CodeRateLimitExceeded = "RATE_LIMIT_EXCEEDED"
	CodeServerNotFound    = "SERVER_NOT_FOUND"
	CodeResetNotAvailable = "RESET_NOT_AVAILABLE"
	CodeNotFound          = "NOT_FOUND"
)

// Error is the webservice's error answer:
// {"error":{"status":403,"code":"RATE_LIMIT_EXCEEDED","message":"…","max_request":200,"interval":3600}}.
type Error struct {
	Path    string
	Status  int    `json:"status"`
	Code    string `json:"code"`
	Message string `json:"message"`
	// MaxRequest and Interval come with RATE_LIMIT_EXCEEDED: this many
	// requests are allowed per this many seconds.
	MaxRequest int `json:"max_request"`
	Interval   int `json:"interval"`
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("robot webservice: GET %s: %d %s: %s", e.Path, e.Status, e.Code, e.Message)
	if e.Code == CodeRateLimitExceeded && e.MaxRequest > 0 {
		msg += fmt.Sprintf(" (%d requests per %s)", e.MaxRequest, e.window())
	}
	return msg
}

// window is the rate limit's interval, an hour when the answer says none.
func (e *Error) window() time.Duration {
	if e.Interval > 0 {
		return time.Duration(e.Interval) * time.Second
	}
	return time.Hour
}

// IsCode says whether err is the webservice's error with this code.
func IsCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// decodeError reads an error answer. One without the envelope keeps its
// HTTP status, with a code derived from it for 401 and 403.
func decodeError(path string, status int, body []byte) error {
	var env struct {
		Error *Error `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil && env.Error != nil && env.Error.Code != "" {
		env.Error.Path = path
		if env.Error.Status == 0 {
			env.Error.Status = status
		}
		return env.Error
	}
	e := &Error{Path: path, Status: status, Message: fmt.Sprintf("an answer without the error envelope: %.200q", body)}
	switch status {
	case 401:
		e.Code = CodeUnauthorized
	case 404:
		e.Code = CodeNotFound
	}
	return e
}
