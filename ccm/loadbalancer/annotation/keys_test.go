package annotation

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strings"
	"testing"

	"github.com/hcloudlab/hcloud-ccm/internal/refdoc"
)

// annotationDoc is what a constant's doc comment says.
type annotationDoc struct {
	Const, What                           string
	Name                                  Key
	Type, Accepted, Default, Env, Example string
}

var docKey = regexp.MustCompile(`\b(Type|Accepted|Default|Env|Example): `)

// readAnnotationDocs parses the Key constants' doc comments, in order.
func readAnnotationDocs(t *testing.T) []annotationDoc {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "keys.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var docs []annotationDoc
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Key" {
				continue
			}
			lit := v.Values[0].(*ast.BasicLit).Value
			docs = append(docs, parseDoc(t, v.Names[0].Name, Key(strings.Trim(lit, `"`)), v.Doc.Text()))
		}
	}
	return docs
}

// parseDoc reads "X is what it does.\n\nType: ... Accepted: ... Default: ... Env: ... Example: ...".
func parseDoc(t *testing.T, name string, a Key, text string) annotationDoc {
	what, fields, ok := strings.Cut(text, "\n\n")
	if !ok {
		t.Errorf("%s: the doc comment lacks its Type/Accepted/Default/Example paragraph", name)
	}
	d := annotationDoc{Const: name, Name: a, What: strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(strings.Join(strings.Fields(what), " "), name+" ")), ".")}
	d.What = strings.TrimPrefix(strings.TrimPrefix(d.What, "is "), "are ")
	fields = strings.Join(strings.Fields(fields), " ")
	keys := docKey.FindAllStringSubmatchIndex(fields, -1)
	for i, k := range keys {
		end := len(fields)
		if i+1 < len(keys) {
			end = keys[i+1][0]
		}
		v := strings.TrimSuffix(strings.TrimSpace(fields[k[1]:end]), ".")
		switch fields[k[2]:k[3]] {
		case "Type":
			d.Type = v
		case "Accepted":
			d.Accepted = v
		case "Default":
			d.Default = v
		case "Env":
			d.Env = v
		case "Example":
			d.Example = v
		}
	}
	return d
}

// TestAnnotationDocsMatchTheTable: every constant is in the table the
// parser reads and back, and its doc comment states the table's type,
// accepted values and variable.
func TestAnnotationDocsMatchTheTable(t *testing.T) {
	docs := readAnnotationDocs(t)
	if len(docs) != len(specs) {
		t.Errorf("%d annotation constants, %d in the table", len(docs), len(specs))
	}
	for _, d := range docs {
		s, ok := specs[d.Name]
		switch {
		case !ok:
			t.Errorf("%s (%s) is not in the table", d.Const, d.Name)
		case d.Const != camel(d.Name.Short()):
			t.Errorf("%s is named for %s: want %s", d.Const, d.Name, camel(d.Name.Short()))
		case d.Type != string(s.kind) || d.Accepted != s.accepted() || d.Env != s.env:
			t.Errorf("%s doc says type %q, accepted %q, env %q; the table says %q, %q, %q", d.Const, d.Type, d.Accepted, d.Env, s.kind, s.accepted(), s.env)
		case d.What == "" || d.Default == "" || d.Example == "":
			t.Errorf("%s: the doc comment lacks what it does, its default or an example", d.Const)
		}
	}
}

// camel is health-check-http-path as HealthCheckHTTPPath.
func camel(s string) string {
	initialisms := map[string]string{"http": "HTTP", "ip": "IP", "ipv4": "IPv4", "ipv6": "IPv6", "rdns": "RDNS", "proxyprotocol": "ProxyProtocol"}
	var b strings.Builder
	for w := range strings.SplitSeq(s, "-") {
		if v, ok := initialisms[w]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

// TestReferenceAnnotations: docs/reference/annotations.md's table is the
// one the doc comments make; make docs rewrites it.
func TestReferenceAnnotations(t *testing.T) {
	refdoc.Check(t, "docs/reference/annotations.md", "annotations", annotationTable(readAnnotationDocs(t)))
}

func annotationTable(docs []annotationDoc) string {
	var b strings.Builder
	b.WriteString("| annotation | value | default | example | per port | what |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, d := range docs {
		def := d.Default
		if d.Env != "" {
			def += "; `" + d.Env + "` sets it"
		}
		port := ""
		if specs[d.Name].port {
			port = "yes"
		}
		fmt.Fprintf(&b, "| `%s` | %s: %s | %s | `%s` | %s | %s |\n", d.Name.Short(), d.Type, cell(d.Accepted), cell(def), d.Example, port, cell(d.What))
	}
	return b.String()
}

// cell escapes what would end a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
