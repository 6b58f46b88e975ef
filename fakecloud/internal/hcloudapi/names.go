package hcloudapi

import (
	"regexp"
	"unicode"
)

var hostnameRe = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$`)

// checkName accepts the names the API accepts for most resources: present,
// at most 128 characters, no whitespace or control characters.
func checkName(f *fieldErrors, field, name string) {
	if name == "" {
		f.add(field, "is required")
		return
	}
	if len(name) > 128 {
		f.add(field, "is longer than 128 characters")
		return
	}
	for _, r := range name {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			f.add(field, "must not contain whitespace or control characters")
			return
		}
	}
}

// checkHostname accepts server names: valid hostnames as per RFC 1123.
func checkHostname(f *fieldErrors, field, name string) {
	switch {
	case name == "":
		f.add(field, "is required")
	case len(name) > 253 || !hostnameRe.MatchString(name):
		f.add(field, "%q is not a valid hostname as per RFC 1123", name)
	}
}
