package robot

import (
	"encoding/json"
	"net/http"
)

// Error codes of the webservice (section "Errors" of the webservice
// documentation and the codes hrobot-go knows), each with the status it
// is answered with; the first code of a status is the one a fault rule
// that gives only the status answers with.
var codeStatuses = []struct {
	code   string
	status int
}{
	{"INVALID_INPUT", http.StatusBadRequest},
	{"UNAUTHORIZED", http.StatusUnauthorized},
	{"RATE_LIMIT_EXCEEDED", http.StatusForbidden},
	{"NOT_FOUND", http.StatusNotFound},
	{"SERVER_NOT_FOUND", http.StatusNotFound},
	{"RESET_NOT_AVAILABLE", http.StatusNotFound},
	{"IP_NOT_FOUND", http.StatusNotFound},
	{"SUBNET_NOT_FOUND", http.StatusNotFound},
	{"RDNS_NOT_FOUND", http.StatusNotFound},
	{"METHOD_NOT_ALLOWED", http.StatusMethodNotAllowed},
	{"CONFLICT", http.StatusConflict},
	{"RESET_MANUAL_ACTIVE", http.StatusConflict},
	{"INTERNAL_ERROR", http.StatusInternalServerError},
	{"RESET_FAILED", http.StatusInternalServerError},
}

// CodeStatus is the status of an error code and whether the webservice
// knows the code.
func CodeStatus(code string) (int, bool) {
	for _, cs := range codeStatuses {
		if cs.code == code {
			return cs.status, true
		}
	}
	return 0, false
}

// CodeOfStatus is the usual code of a status: INTERNAL_ERROR for a status
// without a code of its own.
func CodeOfStatus(status int) string {
	for _, cs := range codeStatuses {
		if cs.status == status {
			return cs.code
		}
	}
	return "INTERNAL_ERROR"
}

// apiError is the webservice's error: {"error":{"status","code","message"}}
// and, for some codes, more fields.
type apiError struct {
	Status  int    `json:"status"`
	Code    string `json:"code"`
	Message string `json:"message"`
	// RATE_LIMIT_EXCEEDED: the endpoint's limit and its interval in seconds.
	MaxRequest int `json:"max_request,omitempty"`
	Interval   int `json:"interval,omitempty"`
	// INVALID_INPUT: the missing and invalid parameters, each null when
	// there is none.
	Missing *[]string `json:"missing,omitempty"`
	Invalid *[]string `json:"invalid,omitempty"`
}

func newError(code, message string) *apiError {
	status, _ := CodeStatus(code)
	return &apiError{Status: status, Code: code, Message: message}
}

// invalidInput names invalid parameters; missing is null, as the
// webservice sends a list it has nothing for.
func invalidInput(invalid ...string) *apiError {
	e := newError("INVALID_INPUT", "invalid input")
	var none []string
	e.Missing, e.Invalid = &none, &invalid
	return e
}

func (e *apiError) write(w http.ResponseWriter) {
	body, _ := json.Marshal(map[string]*apiError{"error": e})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_, _ = w.Write(append(body, '\n'))
}
