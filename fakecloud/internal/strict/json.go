package strict

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// CheckJSONText refuses what encoding/json would quietly repair: bytes
// that are not UTF-8 and \u escapes of lone UTF-16 surrogates, both of
// which it stores as U+FFFD. RFC 8259 §8.1 asks for UTF-8, and a lone
// surrogate is no character at all; the API answers json_error.
func CheckJSONText(body []byte) *apierr.Error {
	if !utf8.Valid(body) {
		return apierr.Errorf(apierr.CodeJSONError, "request body is not valid UTF-8")
	}
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' || i+1 >= len(body) {
			continue
		}
		if body[i+1] != 'u' {
			i++ // a two-character escape such as \\ or \"
			continue
		}
		r, ok := escapedRune(body, i)
		if !ok || !utf16.IsSurrogate(r) {
			i += 5
			continue
		}
		low, ok := escapedRune(body, i+6)
		if r >= 0xdc00 || !ok || utf16.DecodeRune(r, low) == utf8.RuneError {
			return apierr.Errorf(apierr.CodeJSONError, "request body has a lone UTF-16 surrogate \\u%04x at byte %d", r, i)
		}
		i += 11
	}
	return nil
}

// escapedRune reads the \uXXXX escape at body[i:].
func escapedRune(body []byte, i int) (rune, bool) {
	if i+6 > len(body) || body[i] != '\\' || body[i+1] != 'u' {
		return 0, false
	}
	n, err := strconv.ParseUint(string(body[i+2:i+6]), 16, 16)
	return rune(n), err == nil
}

// NullLabels names the first "labels" object, at any depth, with a value
// that is not a string: encoding/json decodes {"a": null} as "a": "",
// where the API wants every label value a string.
func NullLabels(body []byte) (string, bool) {
	if !bytes.Contains(body, []byte(`"labels"`)) {
		return "", false
	}
	var tree any
	if json.Unmarshal(body, &tree) != nil {
		return "", false
	}
	return findBadLabels(tree, "")
}

func findBadLabels(v any, path string) (string, bool) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			child := v[k]
			if labels, ok := child.(map[string]any); ok && k == "labels" {
				for _, key := range slices.Sorted(maps.Keys(labels)) {
					if _, str := labels[key].(string); !str {
						return join(path, "labels") + "." + key, true
					}
				}
			}
			if p, bad := findBadLabels(child, join(path, k)); bad {
				return p, true
			}
		}
	case []any:
		for i, child := range v {
			if p, bad := findBadLabels(child, path+"["+strconv.Itoa(i)+"]"); bad {
				return p, true
			}
		}
	}
	return "", false
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
