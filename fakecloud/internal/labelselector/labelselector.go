// Package labelselector parses the API's label selectors and checks label
// keys and values against its grammar.
package labelselector

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Selector is a parsed label selector; every requirement must hold.
type Selector []requirement

type requirement struct {
	key    string
	op     string // "=", "!=", "exists", "!exists", "in", "notin"
	values []string
}

var (
	labelNameRe  = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9_.-]{0,61}[a-zA-Z0-9])?$`)
	labelValueRe = regexp.MustCompile(`^([a-zA-Z0-9]([a-zA-Z0-9_.-]{0,61}[a-zA-Z0-9])?)?$`)
	dnsPrefixRe  = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$`)
)

// ValidKey reports whether k is an [prefix/]name label key.
func ValidKey(k string) bool {
	name := k
	if i := strings.LastIndexByte(k, '/'); i >= 0 {
		prefix := k[:i]
		name = k[i+1:]
		if len(prefix) == 0 || len(prefix) > 253 || !dnsPrefixRe.MatchString(prefix) {
			return false
		}
	}
	return labelNameRe.MatchString(name)
}

// ValidValue reports whether v is a label value: empty, or up to 63
// characters of letters, digits, -, _ and . that begin and end with a
// letter or digit.
func ValidValue(v string) bool { return labelValueRe.MatchString(v) }

// Parse parses the API's label selector grammar: k=v, k==v, k!=v, k, !k,
// k in (v1,v2), k notin (v1,v2), joined by commas. An empty selector
// matches everything.
func Parse(s string) (Selector, error) {
	var sel Selector
	rest := strings.TrimSpace(s)
	if rest == "" {
		return nil, nil
	}
	for rest != "" {
		part, tail, err := splitRequirement(rest)
		if err != nil {
			return nil, err
		}
		req, err := parseRequirement(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		sel = append(sel, req)
		rest = strings.TrimSpace(tail)
	}
	return sel, nil
}

// splitRequirement returns the first requirement and what follows its comma,
// keeping commas inside parentheses.
func splitRequirement(s string) (string, string, error) {
	depth := 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth < 0 {
				return "", "", fmt.Errorf("unbalanced ')' in %q", s)
			}
		case ',':
			if depth == 0 {
				if strings.TrimSpace(s[i+1:]) == "" {
					return "", "", fmt.Errorf("trailing ',' in %q", s)
				}
				return s[:i], s[i+1:], nil
			}
		}
	}
	if depth != 0 {
		return "", "", fmt.Errorf("unbalanced '(' in %q", s)
	}
	return s, "", nil
}

var setRe = regexp.MustCompile(`^(\S+)\s+(in|notin)\s*\((.*)\)$`)

func parseRequirement(p string) (requirement, error) {
	if p == "" {
		return requirement{}, fmt.Errorf("empty requirement")
	}
	if m := setRe.FindStringSubmatch(p); m != nil {
		r := requirement{key: m[1], op: m[2]}
		for v := range strings.SplitSeq(m[3], ",") {
			v = strings.TrimSpace(v)
			if !ValidValue(v) {
				return r, fmt.Errorf("invalid value %q in %q", v, p)
			}
			r.values = append(r.values, v)
		}
		return r, checkKey(r, p)
	}
	for _, op := range []string{"!=", "==", "="} {
		if k, v, ok := strings.Cut(p, op); ok {
			r := requirement{key: strings.TrimSpace(k), op: op, values: []string{strings.TrimSpace(v)}}
			if op == "==" {
				r.op = "="
			}
			if !ValidValue(r.values[0]) {
				return r, fmt.Errorf("invalid value %q in %q", r.values[0], p)
			}
			return r, checkKey(r, p)
		}
	}
	if k, ok := strings.CutPrefix(p, "!"); ok {
		r := requirement{key: strings.TrimSpace(k), op: "!exists"}
		return r, checkKey(r, p)
	}
	r := requirement{key: p, op: "exists"}
	return r, checkKey(r, p)
}

func checkKey(r requirement, p string) error {
	if !ValidKey(r.key) {
		return fmt.Errorf("invalid label key %q in %q", r.key, p)
	}
	return nil
}

// Matches reports whether labels satisfy every requirement.
func (s Selector) Matches(labels map[string]string) bool {
	for _, r := range s {
		v, ok := labels[r.key]
		switch r.op {
		case "exists":
			if !ok {
				return false
			}
		case "!exists":
			if ok {
				return false
			}
		case "=":
			if !ok || v != r.values[0] {
				return false
			}
		case "!=":
			if ok && v == r.values[0] {
				return false
			}
		case "in":
			if !ok || !slices.Contains(r.values, v) {
				return false
			}
		case "notin":
			if ok && slices.Contains(r.values, v) {
				return false
			}
		}
	}
	return true
}
