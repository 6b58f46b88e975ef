package world

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
)

// writeJSON encodes v as the response body with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		writeError(w, errorf(codeServerError, "encode response: %v", err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

type errorEnvelope struct {
	Error errorBody `json:"error"`
}

type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details"`
}

// writeError answers with the API's error envelope and the status for its code.
func writeError(w http.ResponseWriter, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = errorf(codeServerError, "%v", err)
	}
	writeErrorStatus(w, ae, StatusForCode(ae.Code))
}

// writeErrorStatus answers with the error envelope and a given status.
func writeErrorStatus(w http.ResponseWriter, ae *apiError, status int) {
	details := ae.Details
	if details == nil {
		details = struct{}{}
	}
	body := errorEnvelope{Error: errorBody{Code: ae.Code, Message: ae.Message, Details: details}}
	buf, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(buf, '\n'))
}

// decode reads a JSON object from the request body into v. An empty body
// decodes as {}. Malformed JSON, text that is not UTF-8 and lone surrogate
// escapes are json_error; a value of the wrong type, a null label value
// included, is invalid_input naming the field.
func decode(r *http.Request, v any) *apiError {
	body, err := io.ReadAll(r.Body) // limitBody has held it to maxBody
	if err != nil {
		return errorf(codeJSONError, "read request body: %v", err)
	}
	return decodeBytes(body, v)
}

func decodeBytes(body []byte, v any) *apiError {
	if err := checkJSONText(body); err != nil {
		return err
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		trimmed = []byte("{}")
	}
	if trimmed[0] != '{' {
		if !json.Valid(trimmed) {
			return errorf(codeJSONError, "request body is not valid JSON")
		}
		return errorf(codeJSONError, "request body must be a JSON object")
	}
	trimmed = exactKeysOf(trimmed, v)
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return invalidField(te.Field, "must be of type %s, got %s", jsonType(te.Type.Kind().String()), te.Value)
		}
		return errorf(codeJSONError, "request body is not valid JSON: %v", err)
	}
	if dec.More() {
		return errorf(codeJSONError, "request body has data after the JSON object")
	}
	if field, bad := nullLabels(trimmed); bad {
		return invalidField(field, "label values must be strings")
	}
	return nil
}
