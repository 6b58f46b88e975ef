package hcloudapi

import "net/http"

// call is one API request being served under the world lock.
type call struct {
	w      *liveWorld
	tx     *Tx
	r      *http.Request
	header http.Header
}

// id reads an integer path parameter.
func (c *call) id(name string) (int64, *apiError) {
	v := c.r.PathValue(name)
	id, ok := parseID(v)
	if !ok {
		return 0, invalidField(name, "%q is not a valid ID", v)
	}
	return id, nil
}

func (c *call) decode(v any) *apiError { return decode(c.r, v) }

// lookup reads {id} and finds that resource of a kind.
func lookup[T any](c *call, t *table[T], kind string) (*T, *apiError) {
	id, err := c.id("id")
	if err != nil {
		return nil, err
	}
	v, ok := t.get(id)
	if !ok {
		return nil, notFound(kind, id)
	}
	return v, nil
}

// renameRelabel validates and applies the name and labels of a PUT; name
// must be unique among resources of the kind (taken reports another one).
func renameRelabel(kind string, newName *string, newLabels *map[string]string, check func(*fieldErrors, string, string),
	taken func(string) bool, name *string, labels *map[string]string) *apiError {
	var f fieldErrors
	if newName != nil {
		check(&f, "name", *newName)
	}
	if newLabels != nil {
		validateLabels(&f, "labels", *newLabels)
	}
	if err := f.err(); err != nil {
		return err
	}
	if newName != nil && *newName != *name && taken(*newName) {
		return notUnique("name", "%s name %q is already used", kind, *newName)
	}
	if newName != nil {
		*name = *newName
	}
	if newLabels != nil {
		*labels = copyLabels(*newLabels)
	}
	return nil
}

// nameTaken reports whether a resource of the table has the name.
func nameTaken[T any](t *table[T], name func(*T) string) func(string) bool {
	return func(n string) bool {
		_, dup := t.find(func(v *T) bool { return name(v) == n })
		return dup
	}
}

// nonEmpty is nil for "", for requests whose omitted name decodes as "".
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
