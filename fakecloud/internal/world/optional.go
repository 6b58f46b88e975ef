package world

import "encoding/json"

// Optional is a request field that may be absent, null or a value: Set
// tells a field given null (clear it) from one left out (keep it).
type Optional[T any] struct {
	Set   bool
	Value *T
}

// UnmarshalJSON records that the field was given, and its value or null.
func (o *Optional[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	if string(b) == "null" {
		o.Value = nil
		return nil
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	o.Value = &v
	return nil
}
