package main

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFind(t *testing.T) {
	tests := []struct {
		args     string
		want     string // the command's name; empty for none
		wantRest []string
	}{
		{args: "serve --listen 127.0.0.1:0", want: "serve", wantRest: []string{"--listen", "127.0.0.1:0"}},
		{args: "faults", want: "faults", wantRest: []string{}},
		{args: "faults add {path: /x}", want: "faults add", wantRest: []string{"{path:", "/x}"}},
		{args: "faults bogus", want: "faults", wantRest: []string{"bogus"}},
		{args: "state", want: "state", wantRest: []string{}},
		{args: "state import snap.json", want: "state import", wantRest: []string{"snap.json"}},
		{args: "reset seed", want: "reset", wantRest: []string{"seed"}},
		{args: "explode"},
		{args: "add faults"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			cmd, rest, ok := find(strings.Fields(tt.args))
			if ok != (tt.want != "") || cmd.name != tt.want {
				t.Fatalf("found %q (%v), want %q", cmd.name, ok, tt.want)
			}
			if diff := cmp.Diff(tt.wantRest, rest); ok && diff != "" {
				t.Errorf("rest (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHelpListsEveryCommand(t *testing.T) {
	var out strings.Builder
	if err := dispatch(t.Context(), []string{"help"}, envOf(nil), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, c := range commands() {
		if line := strings.TrimSpace("fakecloud " + c.name + " " + c.args); !strings.Contains(out.String(), "\n  "+line) {
			t.Errorf("help lacks %q:\n%s", line, out.String())
		}
		if !strings.Contains(out.String(), " "+c.usage+"\n") {
			t.Errorf("help lacks %q", c.usage)
		}
	}
}

func TestUnknownCommandPrintsTheTable(t *testing.T) {
	var help, out, errOut strings.Builder
	printCommands(&help)
	err := dispatch(t.Context(), []string{"explode", "--url", "http://127.0.0.1:1"}, envOf(nil), &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), `"explode"`) {
		t.Errorf("error %v does not name the command", err)
	}
	if out.String() != "" || errOut.String() != help.String() {
		t.Errorf("stdout %q, stderr:\n%s\nwant the table on stderr", out.String(), errOut.String())
	}
}
