package world

import (
	"fmt"
	"regexp"
	"unicode"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

var HostnameRe = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$`)

// CheckName accepts the names the API accepts for most resources: present,
// at most 128 characters, no whitespace or control characters.
func CheckName(f *apierr.Fields, field, name string) {
	if name == "" {
		f.Add(field, "is required")
		return
	}
	if len(name) > 128 {
		f.Add(field, "is longer than 128 characters")
		return
	}
	for _, r := range name {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			f.Add(field, "must not contain whitespace or control characters")
			return
		}
	}
}

// CheckHostname accepts server names: valid hostnames as per RFC 1123.
func CheckHostname(f *apierr.Fields, field, name string) {
	switch {
	case name == "":
		f.Add(field, "is required")
	case len(name) > 253 || !HostnameRe.MatchString(name):
		f.Add(field, "%q is not a valid hostname as per RFC 1123", name)
	}
}

// RenameRelabel validates and applies the name and labels of a PUT; name
// must be unique among resources of the kind (taken reports another one).
func RenameRelabel(kind string, newName *string, newLabels *map[string]string, check func(*apierr.Fields, string, string),
	taken func(string) bool, name *string, labels *map[string]string) *apierr.Error {
	var f apierr.Fields
	if newName != nil {
		check(&f, "name", *newName)
	}
	if newLabels != nil {
		ValidateLabels(&f, "labels", *newLabels)
	}
	if err := f.Err(); err != nil {
		return err
	}
	if newName != nil && *newName != *name && taken(*newName) {
		return apierr.NotUnique("name", "%s name %q is already used", kind, *newName)
	}
	if newName != nil {
		*name = *newName
	}
	if newLabels != nil {
		*labels = CopyLabels(*newLabels)
	}
	return nil
}

// NameTaken reports whether a resource of the Table has the name.
func NameTaken[T any](t *Table[T], name func(*T) string) func(string) bool {
	return func(n string) bool {
		_, dup := t.Find(func(v *T) bool { return name(v) == n })
		return dup
	}
}

// NonEmpty is nil for "", for requests whose omitted name decodes as "".
func NonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// freeName is name, or name-2, name-3, … the first no resource of the
// table has: a name the API makes up must be as unique as one given.
func freeName[T any](t *Table[T], name func(*T) string, want string) string {
	taken := NameTaken(t, name)
	out := want
	for i := 2; taken(out); i++ {
		out = fmt.Sprintf("%s-%d", want, i)
	}
	return out
}
