package fakecloud

import (
	"fmt"
	"net/http"
)

// Error codes of the Hetzner Cloud API, as the API names them.
const (
	codeJSONError             = "json_error"
	codeInvalidInput          = "invalid_input"
	codeUnauthorized          = "unauthorized"
	codeForbidden             = "forbidden"
	codeNotFound              = "not_found"
	codeMethodNotAllowed      = "method_not_allowed"
	codeUniquenessError       = "uniqueness_error"
	codeConflict              = "conflict"
	codeResourceUnavailable   = "resource_unavailable"
	codeResourceLimitExceeded = "resource_limit_exceeded"
	codeLocked                = "locked"
	codeProtected             = "protected"
	codeRateLimitExceeded     = "rate_limit_exceeded"
	codeServerError           = "server_error"
	codeUnsupportedError      = "unsupported_error"
	codeServiceError          = "service_error"
	// codeRequestTooLarge answers a body over the limit with 413. The API
	// documents no code for it (its front proxy refuses such bodies);
	// fakecloud names the reason.
	codeRequestTooLarge = "request_too_large"
)

// codeStatuses lists each API error code with the HTTP status the API
// answers it with; the first code of a status is the one a fault rule
// that gives only the status answers with.
var codeStatuses = []struct {
	code   string
	status int
}{
	{codeJSONError, http.StatusBadRequest},
	{codeUnauthorized, http.StatusUnauthorized},
	{codeForbidden, http.StatusForbidden},
	{codeResourceLimitExceeded, http.StatusForbidden},
	{"maintenance", http.StatusForbidden},
	{codeNotFound, http.StatusNotFound},
	{codeMethodNotAllowed, http.StatusMethodNotAllowed},
	{codeConflict, http.StatusConflict},
	{codeUniquenessError, http.StatusConflict},
	{"deprecated_api_endpoint", http.StatusGone},
	{codeResourceUnavailable, http.StatusPreconditionFailed},
	{"primary_ip_version_mismatch", http.StatusPreconditionFailed},
	{codeRequestTooLarge, http.StatusRequestEntityTooLarge},
	{codeInvalidInput, http.StatusUnprocessableEntity},
	{codeServiceError, http.StatusUnprocessableEntity},
	{codeUnsupportedError, http.StatusUnprocessableEntity},
	{codeLocked, http.StatusLocked},
	{codeProtected, http.StatusLocked},
	{codeRateLimitExceeded, http.StatusTooManyRequests},
	{codeServerError, http.StatusInternalServerError},
	{"bad_gateway", http.StatusBadGateway},
	{"unavailable", http.StatusServiceUnavailable},
	{"timeout", http.StatusGatewayTimeout},
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

// StatusForCode returns the HTTP status the API uses for an error code.
// Codes the table does not know (the many resource-specific ones such as
// server_not_attached_to_network) are 422, as the API answers them.
func StatusForCode(code string) int {
	if s, ok := statusOf[code]; ok {
		return s
	}
	return http.StatusUnprocessableEntity
}

// apiError is an error the API reports in its error envelope.
type apiError struct {
	Code    string
	Message string
	Details any // encoded as the envelope's details; nil encodes as null
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

func errorf(code, format string, args ...any) *apiError {
	return &apiError{Code: code, Message: fmt.Sprintf(format, args...)}
}

func notFound(kind string, id any) *apiError {
	return errorf(codeNotFound, "%s with ID '%v' not found", kind, id)
}

func locked(kind string, id int64) *apiError {
	return errorf(codeLocked, "%s %d is locked by a running action", kind, id)
}

func protectedErr(kind string, id int64) *apiError {
	return errorf(codeProtected, "%s %d is protected", kind, id)
}

// fieldErrors collects invalid_input messages per field, in order.
type fieldErrors struct {
	names []string
	msgs  map[string][]string
}

func (f *fieldErrors) add(field, format string, args ...any) {
	if f.msgs == nil {
		f.msgs = map[string][]string{}
	}
	if _, ok := f.msgs[field]; !ok {
		f.names = append(f.names, field)
	}
	f.msgs[field] = append(f.msgs[field], fmt.Sprintf(format, args...))
}

func (f *fieldErrors) empty() bool { return len(f.names) == 0 }

type fieldDetail struct {
	Name     string   `json:"name"`
	Messages []string `json:"messages"`
}

type invalidInputDetails struct {
	Fields []fieldDetail `json:"fields"`
}

// err returns nil when no field is invalid, else one invalid_input error that
// names every bad field.
func (f *fieldErrors) err() *apiError {
	if f.empty() {
		return nil
	}
	d := invalidInputDetails{}
	msg := "invalid input in field"
	for i, n := range f.names {
		d.Fields = append(d.Fields, fieldDetail{Name: n, Messages: f.msgs[n]})
		sep := ", "
		if i == 0 {
			sep = " "
		}
		msg += fmt.Sprintf("%s'%s': %s", sep, n, f.msgs[n][0])
	}
	if len(f.names) > 1 {
		msg = "invalid input in fields" + msg[len("invalid input in field"):]
	}
	return &apiError{Code: codeInvalidInput, Message: msg, Details: d}
}

func invalidField(field, format string, args ...any) *apiError {
	var f fieldErrors
	f.add(field, format, args...)
	return f.err()
}

type limitDetail struct {
	Name string `json:"name"`
}

type limitDetails struct {
	Limits []limitDetail `json:"limits"`
}

func limitExceeded(limit, format string, args ...any) *apiError {
	e := errorf(codeResourceLimitExceeded, format, args...)
	e.Details = limitDetails{Limits: []limitDetail{{Name: limit}}}
	return e
}

type uniqueDetails struct {
	Fields []struct {
		Name string `json:"name"`
	} `json:"fields"`
}

func notUnique(field, format string, args ...any) *apiError {
	e := errorf(codeUniquenessError, format, args...)
	d := uniqueDetails{}
	d.Fields = append(d.Fields, struct {
		Name string `json:"name"`
	}{field})
	e.Details = d
	return e
}
