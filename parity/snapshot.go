package parity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Where a snapshot came from.
const (
	SourceLive            = "live"             // recorded from api.hetzner.cloud
	SourceFakecloud       = "fakecloud"        // recorded from fakecloud: says what fakecloud does, not what the API does
	SourceOpenAPIExamples = "openapi-examples" // built from the description's examples
	// SourcePublicRecord is built from live answers public material shows;
	// each step names its reference, and a run is compared with what the
	// step shows alone (see Diff).
	SourcePublicRecord = "public-record"
)

// A feed check's verdict.
const (
	Holds       = "holds"
	DoesNotHold = "does not hold"
	Unknown     = "unknown"
)

// OnlyFakecloud marks a step never taken against the live API (a rate
// limit is never provoked there).
const OnlyFakecloud = "fakecloud"

// Snapshot is one scenario's normalised exchanges and verdicts.
type Snapshot struct {
	Scenario string `json:"scenario"`
	Source   string `json:"source"`
	// Recorded is when a live recording was made (UTC, RFC 3339). A
	// fakecloud recording is the same on every run and carries none, so
	// rewriting it changes nothing.
	Recorded string `json:"recorded,omitempty"`
	// Setup says how the target was set up (fakecloud's options) and
	// what the kit chose from its catalogue.
	Setup string `json:"setup,omitempty"`
	// NotExercisedLive names what the scenario never does live.
	NotExercisedLive []string `json:"not_exercised_live,omitempty"`
	// Notes are remarks of the run (a fallback taken); not compared.
	Notes    []string  `json:"notes,omitempty"`
	Steps    []Step    `json:"steps"`
	Verdicts []Verdict `json:"verdicts,omitempty"`
}

// Step is one request of the scenario and its answer. Waits and polls
// for running actions are not steps: their number depends on timing.
type Step struct {
	Name string `json:"name"`
	Only string `json:"only,omitempty"`
	// Reference is where a public-record step's answer was seen, and when;
	// not compared.
	Reference string   `json:"reference,omitempty"`
	Request   Request  `json:"request"`
	Response  Response `json:"response"`
	// Actions is the final state of each action the answer started.
	Actions []any `json:"actions,omitempty"`
}

// Request is a step's normalised request.
type Request struct {
	Method string              `json:"method"`
	Path   string              `json:"path"`
	Query  map[string][]string `json:"query,omitempty"`
	Body   any                 `json:"body,omitempty"`
}

// Response is a step's normalised answer.
type Response struct {
	Status int `json:"status"`
	Body   any `json:"body,omitempty"`
}

// Verdict is a feed check's answer to one claim the CCM's economy rests
// on. Evidence says what was seen (counts, ages, commands); it depends on
// the project and on timing, so it is kept but not compared.
type Verdict struct {
	Check    string `json:"check"`
	Claim    string `json:"claim"`
	Verdict  string `json:"verdict"`
	Evidence string `json:"evidence"`
}

// Marshal encodes the snapshot as its file holds it: indented, keys
// sorted, placeholders' angle brackets unescaped, a final newline.
func (s *Snapshot) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("encode snapshot %s: %w", s.Scenario, err)
	}
	return buf.Bytes(), nil
}

// Unmarshal decodes a snapshot, numbers kept as written.
func Unmarshal(data []byte) (*Snapshot, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var s Snapshot
	if err := dec.Decode(&s); err != nil {
		return nil, err
	}
	return &s, nil
}

// SnapshotPath is the file of a scenario's snapshot in dir.
func SnapshotPath(dir, scenario string) string {
	return filepath.Join(dir, scenario+".json")
}

// ReadSnapshot reads a scenario's snapshot from dir.
func ReadSnapshot(dir, scenario string) (*Snapshot, error) {
	data, err := os.ReadFile(SnapshotPath(dir, scenario))
	if err != nil {
		return nil, err
	}
	s, err := Unmarshal(data)
	if err != nil {
		return nil, fmt.Errorf("read snapshot %s: %w", SnapshotPath(dir, scenario), err)
	}
	return s, nil
}

// WriteSnapshot writes the snapshot into dir and returns its path.
func WriteSnapshot(dir string, s *Snapshot) (string, error) {
	data, err := s.Marshal()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := SnapshotPath(dir, s.Scenario)
	return path, os.WriteFile(path, data, 0o644)
}

// Diff compares a run with the snapshot it must reproduce: steps and
// verdicts, not evidence, notes or where each came from. When either is
// live, the steps taken against fakecloud only are left out of both.
// An empty string means the run reproduces the snapshot.
func Diff(want, got *Snapshot) (string, error) {
	w, g := *want, *got
	if want.Source == SourceLive || got.Source == SourceLive {
		notOnly := func(s Step) bool { return s.Only != "" }
		w.Steps = slices.DeleteFunc(slices.Clone(w.Steps), notOnly)
		g.Steps = slices.DeleteFunc(slices.Clone(g.Steps), notOnly)
	}
	// Compare what the file would hold, so numbers and maps decode alike.
	data, err := g.Marshal()
	if err != nil {
		return "", err
	}
	run, err := Unmarshal(data)
	if err != nil {
		return "", err
	}
	if want.Source == SourcePublicRecord {
		run.Steps = shownOnly(w.Steps, run.Steps)
	}
	type compared struct {
		Steps    []Step
		Verdicts []Verdict
	}
	return cmp.Diff(compared{w.Steps, w.Verdicts}, compared{run.Steps, run.Verdicts},
		cmpopts.IgnoreFields(Verdict{}, "Evidence"), cmpopts.IgnoreFields(Step{}, "Reference"), cmpopts.EquateEmpty()), nil
}

// shownOnly cuts each step of a run down to what the public record's step
// shows: of an answer's body (and of the actions' final states) the keys
// the record has, at every depth; a record without a body or actions
// compares the status alone. Steps beyond the record's stay whole, so a
// run with more steps still differs.
func shownOnly(record, run []Step) []Step {
	out := slices.Clone(run)
	for i := range min(len(record), len(out)) {
		if record[i].Response.Body == nil {
			out[i].Response.Body = nil
		} else {
			out[i].Response.Body = cut(record[i].Response.Body, out[i].Response.Body)
		}
		if record[i].Actions == nil {
			out[i].Actions = nil
		} else {
			out[i].Actions = cut(record[i].Actions, out[i].Actions).([]any)
		}
	}
	return out
}

// cut keeps of got the keys shown has, in maps at every depth and in the
// items of lists of the same length; any other value (a null included) is
// compared whole.
func cut(shown, got any) any {
	switch s := shown.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return got
		}
		out := map[string]any{}
		for k, v := range s {
			if gv, ok := g[k]; ok {
				out[k] = cut(v, gv)
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(s) {
			return got
		}
		out := make([]any, len(g))
		for i := range g {
			out[i] = cut(s[i], g[i])
		}
		return out
	}
	return got
}
