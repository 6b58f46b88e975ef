package parity

import (
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	step := func(name, only string, status int) Step {
		return Step{Name: name, Only: only, Request: Request{Method: "GET", Path: "/servers/<server:1>"},
			Response: Response{Status: status, Body: map[string]any{"server": map[string]any{"id": "<server:1>"}}}}
	}
	verdict := func(v, evidence string) Verdict {
		return Verdict{Check: "2/rename", Claim: "rename leaves an action", Verdict: v, Evidence: evidence}
	}
	shown := func(name string, status int, body any) Step {
		return Step{Name: name, Request: Request{Method: "POST", Path: "/servers"}, Response: Response{Status: status, Body: body}}
	}
	snap := func(source string, steps []Step, verdicts ...Verdict) *Snapshot {
		return &Snapshot{Scenario: "x", Source: source, Steps: steps, Verdicts: verdicts}
	}
	tests := []struct {
		name      string
		want, got *Snapshot
		wantDiff  string // a line the diff holds; empty: no difference
	}{{
		name: "the same steps and verdicts",
		want: snap(SourceFakecloud, []Step{step("a", "", 200)}, verdict(Holds, "x")),
		got:  snap(SourceFakecloud, []Step{step("a", "", 200)}, verdict(Holds, "x")),
	}, {
		name: "evidence, notes and origin are not compared",
		want: &Snapshot{Scenario: "x", Source: SourceLive, Recorded: "2026-05-01T00:00:00Z", Notes: []string{"n"},
			Steps: []Step{step("a", "", 200)}, Verdicts: []Verdict{verdict(Unknown, "90 days")}},
		got: snap(SourceFakecloud, []Step{step("a", "", 200)}, verdict(Unknown, "24s")),
	}, {
		name:     "another verdict",
		want:     snap(SourceLive, nil, verdict(Holds, "")),
		got:      snap(SourceFakecloud, nil, verdict(DoesNotHold, "")),
		wantDiff: `"does not hold"`,
	}, {
		name:     "another status",
		want:     snap(SourceFakecloud, []Step{step("a", "", 200)}),
		got:      snap(SourceFakecloud, []Step{step("a", "", 404)}),
		wantDiff: "404",
	}, {
		name: "a live recording lacks the steps fakecloud only takes",
		want: snap(SourceLive, []Step{step("a", "", 200)}),
		got:  snap(SourceFakecloud, []Step{step("a", "", 200), step("rate limited", OnlyFakecloud, 429)}),
	}, {
		name:     "a fakecloud recording has them",
		want:     snap(SourceFakecloud, []Step{step("a", "", 200), step("rate limited", OnlyFakecloud, 429)}),
		got:      snap(SourceFakecloud, []Step{step("a", "", 200)}),
		wantDiff: "rate limited",
	}, {
		name: "a live run against a fakecloud recording leaves them out",
		want: snap(SourceFakecloud, []Step{step("a", "", 200), step("rate limited", OnlyFakecloud, 429)}),
		got:  snap(SourceLive, []Step{step("a", "", 200)}),
	}, {
		name: "a public record compares what it shows alone",
		want: snap(SourcePublicRecord, []Step{shown("a", 422, map[string]any{"error": map[string]any{"code": "x", "details": nil}}), shown("setup", 201, nil)}),
		got: snap(SourceFakecloud, []Step{shown("a", 422, map[string]any{"error": map[string]any{"code": "x", "details": nil, "message": "<message>"}}),
			shown("setup", 201, map[string]any{"network": map[string]any{"id": "<network:1>"}})}),
	}, {
		name:     "a public record's null is compared",
		want:     snap(SourcePublicRecord, []Step{shown("a", 429, map[string]any{"error": map[string]any{"details": nil}})}),
		got:      snap(SourceFakecloud, []Step{shown("a", 429, map[string]any{"error": map[string]any{"details": map[string]any{}}})}),
		wantDiff: "details",
	}, {
		name:     "a public record's list is compared item by item",
		want:     snap(SourcePublicRecord, []Step{shown("a", 201, map[string]any{"next_actions": []any{map[string]any{"command": "start_server"}, map[string]any{"command": "attach_to_network"}}})}),
		got:      snap(SourceFakecloud, []Step{shown("a", 201, map[string]any{"next_actions": []any{map[string]any{"command": "start_server", "id": "<action:2>"}}})}),
		wantDiff: "attach_to_network",
	}, {
		name:     "a public record's status is compared",
		want:     snap(SourcePublicRecord, []Step{shown("setup", 201, nil)}),
		got:      snap(SourceFakecloud, []Step{shown("setup", 200, nil)}),
		wantDiff: "201",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The snapshot compared is read from its file, as make parity reads it.
			data, err := tt.want.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			want, err := Unmarshal(data)
			if err != nil {
				t.Fatal(err)
			}
			diff, err := Diff(want, tt.got)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.wantDiff == "" && diff != "":
				t.Errorf("want no difference, got:\n%s", diff)
			case tt.wantDiff != "" && !strings.Contains(diff, tt.wantDiff):
				t.Errorf("want a difference with %s, got:\n%s", tt.wantDiff, diff)
			}
		})
	}
}

// TestMarshalIsStable: placeholders keep their angle brackets, keys are
// sorted, and reading and writing again gives the same bytes.
func TestMarshalIsStable(t *testing.T) {
	s := &Snapshot{Scenario: "x", Source: SourceFakecloud, Steps: []Step{{Name: "a",
		Request:  Request{Method: "GET", Path: "/servers/<server:1>"},
		Response: Response{Status: 200, Body: map[string]any{"b": 1, "a": "<time>"}}}}}
	first, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(first), `"/servers/<server:1>"`) || strings.Index(string(first), `"a"`) > strings.Index(string(first), `"b"`) {
		t.Errorf("encoded:\n%s", first)
	}
	read, err := Unmarshal(first)
	if err != nil {
		t.Fatal(err)
	}
	second, err := read.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if string(first) != string(second) {
		t.Errorf("written again:\n%s\nfirst:\n%s", second, first)
	}
}
