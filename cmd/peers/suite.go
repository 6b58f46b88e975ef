package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Outcome is how one test ended.
type Outcome string

const (
	Pass Outcome = "pass"
	Fail Outcome = "fail"
	Skip Outcome = "skip"
)

// Test is one top-level test of a package.
type Test struct {
	Package, Name string
	Outcome       Outcome
	// Apart says why the test does not count, or "" when it does: a
	// resource fakecloud does not simulate, or a registry it cannot reach.
	Apart  string
	output strings.Builder
}

// Output is what the test printed.
func (t *Test) Output() string { return t.output.String() }

// event is one line of go test -json.
type event struct {
	Action, Package, Test, Output string
}

// Suite says which packages of a suite test what fakecloud simulates.
type Suite struct {
	// Prefix is what the names of the tests that count start with, such
	// as TestAcc for acceptance tests; the rest (unit tests) are left out.
	Prefix string
	// Unsimulated maps a package's last path element to the resource
	// fakecloud does not simulate, such as "firewall".
	Unsimulated map[string]string
	// UnsimulatedNames maps a part of a test's name to the resource it
	// needs that fakecloud does not simulate, for tests of other packages
	// such as TestAccServerResource_Firewalls.
	UnsimulatedNames map[string]string
	// Registry are substrings of a test's output that show it needed a
	// provider registry, which this machine cannot reach.
	Registry []string
	// Known are failures that are not fakecloud's to mend, each told by a
	// substring of the failed test's output.
	Known []Known
	// NotRun are tests left out of the run (go test -skip), by package's
	// last path element and name, with the reason: each is listed apart
	// when its package ran.
	NotRun map[string]string
}

// Known is a known failure: a test whose output holds Marker fails for
// Reason, such as an assertion of the API before a change the live API
// made after the suite was written.
type Known struct{ Marker, Reason string }

// Read collects the top-level tests of a go test -json stream, each
// sorted by s.
func (s Suite) Read(r io.Reader) ([]*Test, error) {
	tests := map[string]*Test{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Test == "" {
			continue // a build line, or the package's own
		}
		name, _, sub := strings.Cut(e.Test, "/")
		if !strings.HasPrefix(name, s.Prefix) {
			continue
		}
		key := e.Package + " " + name
		t := tests[key]
		if t == nil {
			t = &Test{Package: e.Package, Name: name}
			tests[key] = t
		}
		switch {
		case e.Action == "output":
			if t.output.Len() < 1<<20 {
				t.output.WriteString(e.Output)
			}
		case !sub && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
			t.Outcome = Outcome(e.Action)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	ran := map[string]string{}
	for _, t := range tests {
		ran[t.Package[strings.LastIndex(t.Package, "/")+1:]] = t.Package
	}
	for key, reason := range s.NotRun {
		pkg, name, _ := strings.Cut(key, " ")
		if full, ok := ran[pkg]; ok && tests[full+" "+name] == nil {
			tests[full+" "+name] = &Test{Package: full, Name: name, Outcome: Skip, Apart: "not run: " + reason}
		}
	}
	out := slices.Collect(maps.Values(tests))
	for _, t := range out {
		if t.Apart != "" {
			continue
		}
		if t.Outcome == "" {
			t.Outcome = Fail // the run ended before the test did
		}
		t.Apart = s.apart(t)
	}
	slices.SortFunc(out, func(a, b *Test) int { return strings.Compare(a.Package+" "+a.Name, b.Package+" "+b.Name) })
	return out, nil
}

func (s Suite) apart(t *Test) string {
	pkg := t.Package[strings.LastIndex(t.Package, "/")+1:]
	if what, ok := s.Unsimulated[pkg]; ok {
		return what + " is not simulated"
	}
	for _, part := range slices.Sorted(maps.Keys(s.UnsimulatedNames)) {
		if strings.Contains(t.Name, part) {
			return s.UnsimulatedNames[part] + " is not simulated"
		}
	}
	if t.Outcome != Fail {
		return ""
	}
	for _, r := range s.Registry {
		if strings.Contains(t.Output(), r) {
			return "needs a provider registry"
		}
	}
	for _, k := range s.Known {
		if strings.Contains(t.Output(), k.Marker) {
			return k.Reason
		}
	}
	return ""
}

// Summary counts the tests that count and those apart.
type Summary struct {
	Passed, Counted, Skipped int
	Apart                    map[string]int // by reason
}

// Summarise counts tests.
func Summarise(tests []*Test) Summary {
	s := Summary{Apart: map[string]int{}}
	for _, t := range tests {
		switch {
		case t.Apart != "":
			s.Apart[t.Apart]++
		case t.Outcome == Skip:
			s.Skipped++
		default:
			s.Counted++
			if t.Outcome == Pass {
				s.Passed++
			}
		}
	}
	return s
}

// Line is the summary line make peers prints.
func (s Summary) Line(tool string) string {
	line := fmt.Sprintf("peers: %s %d/%d passed", tool, s.Passed, s.Counted)
	var apart []string
	for _, why := range slices.Sorted(maps.Keys(s.Apart)) {
		apart = append(apart, fmt.Sprintf("%d %s", s.Apart[why], why))
	}
	if s.Skipped > 0 {
		apart = append(apart, fmt.Sprintf("%d skipped by the suite", s.Skipped))
	}
	if len(apart) > 0 {
		line += " (apart: " + strings.Join(apart, "; ") + ")"
	}
	return line
}

// Table is the Markdown table of tests by package: passed, failed, apart,
// and the failing tests' names.
func Table(tests []*Test) string {
	type row struct {
		passed, failed, apart int
		failing               []string
	}
	rows := map[string]*row{}
	for _, t := range tests {
		pkg := t.Package[strings.LastIndex(t.Package, "/")+1:]
		r := rows[pkg]
		if r == nil {
			r = &row{}
			rows[pkg] = r
		}
		switch {
		case t.Apart != "":
			r.apart++
		case t.Outcome == Pass:
			r.passed++
		case t.Outcome == Fail:
			r.failed++
			r.failing = append(r.failing, "`"+t.Name+"`")
		}
	}
	var b strings.Builder
	b.WriteString("| package | passed | failed | apart | failing |\n| --- | ---: | ---: | ---: | --- |\n")
	for _, pkg := range slices.Sorted(maps.Keys(rows)) {
		r := rows[pkg]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s |\n", pkg, r.passed, r.failed, r.apart, strings.Join(r.failing, ", "))
	}
	// Tests of simulated resources apart say why, one by one.
	first := true
	for _, t := range tests {
		if t.Apart == "" || strings.HasSuffix(t.Apart, " is not simulated") {
			continue
		}
		if first {
			b.WriteString("\nApart, in packages of resources fakecloud simulates:\n\n")
			first = false
		}
		fmt.Fprintf(&b, "- `%s` (%s): %s\n", t.Name, t.Package[strings.LastIndex(t.Package, "/")+1:], t.Apart)
	}
	return b.String()
}
