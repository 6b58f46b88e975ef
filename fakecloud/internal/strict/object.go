package strict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	yaml3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"
)

// Object decodes a YAML or JSON document that must be an object
// and valid UTF-8, refusing fields v does not have.
func Object(data []byte, v any) error {
	if err := CheckJSONText(data); err != nil {
		return errors.New("body: " + strings.TrimPrefix(err.Message, "request body "))
	}
	if err := SingleDocument(data); err != nil {
		return err
	}
	// JSON is read as JSON: as YAML, {"name":1e400} would name a string.
	js := data
	if !json.Valid(data) {
		var err error
		if js, err = yaml.YAMLToJSON(data); err != nil {
			return err
		}
	}
	if js = bytes.TrimSpace(js); len(js) == 0 || js[0] != '{' {
		return errors.New("body: must be an object; empty and null bodies are refused")
	}
	if field, bad := NullLabels(js); bad {
		return errors.New(field + ": label values must be strings")
	}
	// Keys are matched exactly, as the API matches them: "Type" is not
	// "type", though encoding/json would take it for it.
	if err := InexactKey(js, v); err != nil {
		return fmt.Errorf("body: %w", err)
	}
	// Decoded from JSON, not with sigs.k8s.io/yaml's target-aware
	// conversion, which turns a number given for a string into its
	// float text (99999999999999999999 into "1e+20") and off into "false".
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fmt.Errorf("%s: must be of type %s, got %s; quote text in YAML", te.Field, JSONType(te.Type.Kind().String()), te.Value)
		}
		return errors.New("body: " + strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// SingleDocument refuses a body of more than one YAML document, or one
// with text after its end ("{}{}", "{} x"), which sigs.k8s.io/yaml would
// cut off without a word.
func SingleDocument(data []byte) error {
	dec := yaml3.NewDecoder(bytes.NewReader(data))
	var first, second yaml3.Node
	if err := dec.Decode(&first); err != nil && err != io.EOF {
		return fmt.Errorf("body: %v", err)
	}
	if err := dec.Decode(&second); err != io.EOF {
		return errors.New("body: has more than one document, or text after its end")
	}
	return nil
}
