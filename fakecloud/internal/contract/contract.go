// Package contract checks API requests against the Hetzner Cloud OpenAPI
// description: each JSON body against its operation's schema, each query
// parameter against its own. It knows nothing of the world, so it cannot
// tell whether a server exists; the handlers decide that.
//
// requests.json is extracted from testdata/openapi/cloud.spec.json by
// go generate; a test keeps the two in step.
package contract

//go:generate go run ./gen ../../../testdata/openapi/cloud.spec.json requests.json

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed requests.json
var requests []byte

// A Problem is one field that breaks the description: its dotted name, as
// the API's invalid_input details give it, and what is wrong.
type Problem struct {
	Field   string
	Message string
}

// Contract holds the compiled schemas. It is safe for concurrent use.
type Contract struct {
	routes *routes
}

type compiled struct {
	body  *jsonschema.Schema
	query map[string]queryParam
}

type queryParam struct {
	required bool
	array    bool
	typ      string // of the value, or of each item of an array
	schema   *jsonschema.Schema
}

var (
	once     sync.Once
	fromSpec *Contract
)

// Default is the contract of the vendored description, compiled once. It
// panics if the embedded schemas do not compile, which a test rules out.
func Default() *Contract {
	once.Do(func() {
		var err error
		if fromSpec, err = Compile(requests); err != nil {
			panic("contract: " + err.Error())
		}
	})
	return fromSpec
}

// Compile builds a contract from Extract's output.
func Compile(data []byte) (*Contract, error) {
	var ops []operation
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&ops); err != nil {
		return nil, fmt.Errorf("read request schemas: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	rt := newRoutes()
	for i, op := range ops {
		cp := compiled{query: map[string]queryParam{}}
		var err error
		if op.Body != nil {
			if cp.body, err = compile(c, fmt.Sprintf("op%d/body", i), op.Body); err != nil {
				return nil, fmt.Errorf("%s %s body: %w", op.Method, op.Path, err)
			}
		}
		for _, p := range op.Query {
			qp, err := compileParam(c, fmt.Sprintf("op%d/query/%s", i, p.Name), p)
			if err != nil {
				return nil, fmt.Errorf("%s %s query %s: %w", op.Method, op.Path, p.Name, err)
			}
			cp.query[p.Name] = qp
		}
		rt.add(op.Method, op.Path, cp)
	}
	return &Contract{routes: rt}, nil
}

func compile(c *jsonschema.Compiler, name string, schema any) (*jsonschema.Schema, error) {
	loc := "mem:///" + name + ".json"
	if err := c.AddResource(loc, schema); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

func compileParam(c *jsonschema.Compiler, name string, p param) (queryParam, error) {
	s, _ := p.Schema.(map[string]any)
	qp := queryParam{required: p.Required}
	qp.typ, _ = s["type"].(string)
	if qp.typ == "array" {
		qp.array = true
		items, _ := s["items"].(map[string]any)
		qp.typ, _ = items["type"].(string)
	}
	var err error
	qp.schema, err = compile(c, name, p.Schema)
	return qp, err
}

// Check lists how a request breaks the description: none for an
// operation the description does not know, and none for a body that is
// not a JSON object, which the handlers refuse as json_error. Where the
// description has a body, it is required: {} at least. path is the path
// below /v1.
func (c *Contract) Check(method, path string, query url.Values, body []byte) []Problem {
	op, ok := c.routes.match(method, path)
	if !ok {
		return nil
	}
	problems := op.checkQuery(query)
	if op.body == nil {
		return problems
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return append(problems, Problem{"body", "is required: a JSON object, {} at least"})
	}
	if trimmed[0] != '{' {
		return problems
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(trimmed))
	if err != nil {
		return problems
	}
	return append(problems, problemsOf(op.body.Validate(doc), "")...)
}

func (op compiled) checkQuery(query url.Values) []Problem {
	var problems []Problem
	for _, name := range slices.Sorted(maps.Keys(op.query)) {
		p := op.query[name]
		values, given := query[name]
		if !given {
			if p.required {
				problems = append(problems, Problem{name, "is required"})
			}
			continue
		}
		v, bad := p.value(values)
		if bad != "" {
			problems = append(problems, Problem{name, bad})
			continue
		}
		problems = append(problems, problemsOf(p.schema.Validate(v), name)...)
	}
	return problems
}

// value turns query text into the JSON value its schema describes.
func (p queryParam) value(values []string) (any, string) {
	if !p.array {
		return scalar(p.typ, values[0])
	}
	items := make([]any, 0, len(values))
	for _, s := range values {
		v, bad := scalar(p.typ, s)
		if bad != "" {
			return nil, bad
		}
		items = append(items, v)
	}
	return items, ""
}

func scalar(typ, s string) (any, string) {
	switch typ {
	case "integer":
		if !isInteger(s) {
			return nil, fmt.Sprintf("%q is not an integer", s)
		}
		return json.Number(s), ""
	case "boolean":
		if s != "true" && s != "false" {
			return nil, fmt.Sprintf("%q is not a boolean: use true or false", s)
		}
		return s == "true", ""
	}
	return s, ""
}

// isInteger accepts plain decimal text: an optional minus, no leading zero.
func isInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || len(s) > 19 || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
