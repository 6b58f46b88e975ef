package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/strict"
)

// WriteJSON encodes v as the response body with the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		WriteError(w, apierr.Errorf(apierr.CodeServerError, "encode response: %v", err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

type Envelope struct {
	Error ErrorBody `json:"error"`
}

type ErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details"`
}

// WriteError answers with the API's error envelope and the status for its code.
func WriteError(w http.ResponseWriter, err error) {
	var ae *apierr.Error
	if !errors.As(err, &ae) {
		ae = apierr.Errorf(apierr.CodeServerError, "%v", err)
	}
	status := ae.Status
	if status == 0 {
		status = apierr.Status(ae.Code)
	}
	WriteErrorStatus(w, ae, status)
}

// WriteErrorStatus answers with the error envelope and a given status.
func WriteErrorStatus(w http.ResponseWriter, ae *apierr.Error, status int) {
	details := ae.Details
	if details == nil && !apierr.NullDetails(ae.Code) {
		details = struct{}{}
	}
	body := Envelope{Error: ErrorBody{Code: ae.Code, Message: ae.Message, Details: details}}
	buf, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(buf, '\n'))
}

// Decode reads a JSON object from the request body into v. An empty body
// decodes as {}. Malformed JSON, text that is not UTF-8 and lone surrogate
// escapes are json_error; a value of the wrong type, a null label value
// included, is invalid_input naming the field.
func Decode(r *http.Request, v any) *apierr.Error {
	body, err := io.ReadAll(r.Body) // LimitBody has held it to MaxBody
	if err != nil {
		return apierr.Errorf(apierr.CodeJSONError, "read request body: %v", err)
	}
	return DecodeBytes(body, v)
}

func DecodeBytes(body []byte, v any) *apierr.Error {
	if err := strict.CheckJSONText(body); err != nil {
		return err
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		trimmed = []byte("{}")
	}
	if trimmed[0] != '{' {
		if !json.Valid(trimmed) {
			return apierr.Errorf(apierr.CodeJSONError, "request body is not valid JSON")
		}
		return apierr.Errorf(apierr.CodeJSONError, "request body must be a JSON object")
	}
	trimmed = strict.ExactKeysOf(trimmed, v)
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return apierr.InvalidField(te.Field, "must be of type %s, got %s", strict.JSONType(te.Type.Kind().String()), te.Value)
		}
		return apierr.Errorf(apierr.CodeJSONError, "request body is not valid JSON: %v", err)
	}
	if dec.More() {
		return apierr.Errorf(apierr.CodeJSONError, "request body has data after the JSON object")
	}
	if field, bad := strict.NullLabels(trimmed); bad {
		return apierr.InvalidField(field, "label values must be strings")
	}
	return nil
}

// Bearer is the token of an "Authorization: Bearer <token>" header, or
// "" for any other header. The scheme is case-insensitive (RFC 9110).
func Bearer(r *http.Request) string {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}
