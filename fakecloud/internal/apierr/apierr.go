// Package apierr is the Hetzner Cloud API's error model as fakecloud
// answers it: the error codes, the status each is answered with, the
// envelope's details, and the codes a client can meet at all. It needs no
// HTTP: statuses are plain numbers.
package apierr

import "fmt"

// Error codes of the Hetzner Cloud API, as the API names them.
const (
	CodeJSONError             = "json_error"
	CodeInvalidInput          = "invalid_input"
	CodeUnauthorized          = "unauthorized"
	CodeForbidden             = "forbidden"
	CodeNotFound              = "not_found"
	CodeMethodNotAllowed      = "method_not_allowed"
	CodeUniquenessError       = "uniqueness_error"
	CodeConflict              = "conflict"
	CodeResourceUnavailable   = "resource_unavailable"
	CodeResourceLimitExceeded = "resource_limit_exceeded"
	CodeLocked                = "locked"
	CodeProtected             = "protected"
	CodeRateLimitExceeded     = "rate_limit_exceeded"
	CodeServerError           = "server_error"
	CodeUnsupportedError      = "unsupported_error"
	CodeServiceError          = "service_error"
	// CodeRequestTooLarge answers a body over the limit with 413. The API
	// documents no code for it (its front proxy refuses such bodies);
	// fakecloud names the reason.
	CodeRequestTooLarge = "request_too_large"
)

// codeStatuses lists each API error code with the HTTP status the API
// answers it with; the first code of a status is the one a fault rule
// that gives only the status answers with.
var codeStatuses = []struct {
	code   string
	status int
}{
	{CodeJSONError, 422}, // live since 2026 at least (docs/reference/fakecloud/deviations.md)
	{CodeUnauthorized, 401},
	{CodeForbidden, 403},
	{CodeResourceLimitExceeded, 403},
	{"maintenance", 403},
	{CodeNotFound, 404},
	{CodeMethodNotAllowed, 405},
	{CodeConflict, 409},
	{CodeUniquenessError, 409},
	{"deprecated_api_endpoint", 410},
	{CodeResourceUnavailable, 412},
	{"primary_ip_version_mismatch", 412},
	{CodeRequestTooLarge, 413},
	{CodeInvalidInput, 422},
	{CodeServiceError, 422},
	{CodeUnsupportedError, 422},
	{CodeLocked, 423},
	{CodeProtected, 423},
	{CodeRateLimitExceeded, 429},
	{CodeServerError, 500},
	{"bad_gateway", 502},
	{"unavailable", 503},
	{"timeout", 504},
}

// statusOf maps an API error code to its status, and codeOfStatus a
// status to its usual code; both are read from codeStatuses.
var statusOf, codeOfStatus = func() (map[string]int, map[int]string) {
	byCode, byStatus := map[string]int{}, map[int]string{}
	for _, cs := range codeStatuses {
		byCode[cs.code] = cs.status
		if _, ok := byStatus[cs.status]; !ok {
			byStatus[cs.status] = cs.code
		}
	}
	return byCode, byStatus
}()

// Status returns the HTTP status the API uses for an error code.
// Codes the table does not know (the many resource-specific ones such as
// server_not_attached_to_network) are 422, as the API answers them.
func Status(code string) int {
	if s, ok := statusOf[code]; ok {
		return s
	}
	return 422
}

// NullDetails reports whether the API answers a code with "details": null
// rather than {} when there is nothing to detail, as public answers show
// for rate_limit_exceeded and resource_unavailable, and the description's
// example for unauthorized.
func NullDetails(code string) bool {
	switch code {
	case CodeRateLimitExceeded, CodeResourceUnavailable, CodeUnauthorized:
		return true
	}
	return false
}

// Error is an error the API reports in its error envelope.
type Error struct {
	Code    string
	Message string
	Details any // encoded as the envelope's details; nil encodes as null
	// Status, when set, is the answer's status instead of the code's: one
	// code the API answers with two statuses on two operations
	// (firewall_resource_not_found, 422 creating a firewall and 404
	// applying one).
	Status int
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf is an error with code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// NotFound is the API's not_found for a kind and an ID.
func NotFound(kind string, id any) *Error {
	return Errorf(CodeNotFound, "%s with ID '%v' not found", kind, id)
}

// Locked is the API's locked: a running action holds the resource.
func Locked(kind string, id int64) *Error {
	return Errorf(CodeLocked, "%s %d is locked by a running action", kind, id)
}

// Protected is the API's protected: the resource is protected against it.
func Protected(kind string, id int64) *Error {
	return Errorf(CodeProtected, "%s %d is protected", kind, id)
}

// Fields collects invalid_input messages per field, in order.
type Fields struct {
	names []string
	msgs  map[string][]string
}

// Add records a message for field.
func (f *Fields) Add(field, format string, args ...any) {
	if f.msgs == nil {
		f.msgs = map[string][]string{}
	}
	if _, ok := f.msgs[field]; !ok {
		f.names = append(f.names, field)
	}
	f.msgs[field] = append(f.msgs[field], fmt.Sprintf(format, args...))
}

// Empty reports whether no field is invalid.
func (f *Fields) Empty() bool { return len(f.names) == 0 }

// FieldDetail is one field of invalid_input's details.
type FieldDetail struct {
	Name     string   `json:"name"`
	Messages []string `json:"messages"`
}

// InvalidInputDetails are invalid_input's details.
type InvalidInputDetails struct {
	Fields []FieldDetail `json:"fields"`
}

// Err returns nil when no field is invalid, else one invalid_input error that
// names every bad field.
func (f *Fields) Err() *Error {
	if f.Empty() {
		return nil
	}
	d := InvalidInputDetails{}
	msg := "invalid input in field"
	for i, n := range f.names {
		d.Fields = append(d.Fields, FieldDetail{Name: n, Messages: f.msgs[n]})
		sep := ", "
		if i == 0 {
			sep = " "
		}
		msg += fmt.Sprintf("%s'%s': %s", sep, n, f.msgs[n][0])
	}
	if len(f.names) > 1 {
		msg = "invalid input in fields" + msg[len("invalid input in field"):]
	}
	return &Error{Code: CodeInvalidInput, Message: msg, Details: d}
}

// InvalidField is invalid_input naming one field.
func InvalidField(field, format string, args ...any) *Error {
	var f Fields
	f.Add(field, format, args...)
	return f.Err()
}

type limitDetail struct {
	Name string `json:"name"`
}

type limitDetails struct {
	Limits []limitDetail `json:"limits"`
}

// LimitExceeded is resource_limit_exceeded naming the limit.
func LimitExceeded(limit, format string, args ...any) *Error {
	e := Errorf(CodeResourceLimitExceeded, format, args...)
	e.Details = limitDetails{Limits: []limitDetail{{Name: limit}}}
	return e
}

type uniqueDetails struct {
	Fields []struct {
		Name string `json:"name"`
	} `json:"fields"`
}

// NotUnique is uniqueness_error naming the field.
func NotUnique(field, format string, args ...any) *Error {
	e := Errorf(CodeUniquenessError, format, args...)
	d := uniqueDetails{}
	d.Fields = append(d.Fields, struct {
		Name string `json:"name"`
	}{field})
	e.Details = d
	return e
}

// CodeOfStatus is the code a status alone is answered with, if the table
// has one.
func CodeOfStatus(status int) (string, bool) {
	c, ok := codeOfStatus[status]
	return c, ok
}

// Mapped reports whether the table maps code to a status.
func Mapped(code string) bool {
	_, ok := statusOf[code]
	return ok
}

// CheckUnique refuses an item listed twice in one request (a network to
// attach, a certificate to serve): the API names the field. A client that
// repeats one would otherwise pass here and fail in production.
func CheckUnique[T comparable](f *Fields, field string, items []T) {
	seen := make(map[T]bool, len(items))
	for _, it := range items {
		if seen[it] {
			f.Add(field, "%v is given more than once", it)
			return
		}
		seen[it] = true
	}
}
