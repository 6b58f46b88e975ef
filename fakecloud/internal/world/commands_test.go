package world

import (
	"slices"
	"strings"
	"testing"

	"github.com/hcloudlab/hcloud-ccm/internal/refdoc"
)

// TestCommandsFromTheKinds: Commands is every command the kinds declare,
// sorted and once each, and the runner refuses to start one its kind does
// not declare, so an action fault can name only a command that fires.
func TestCommandsFromTheKinds(t *testing.T) {
	got := Commands()
	if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
		t.Errorf("Commands() = %v, want sorted and unique", got)
	}
	for _, want := range []string{"start_server", "add_target", "add_subnet", "assign_primary_ip", "create_certificate"} {
		if !slices.Contains(got, want) {
			t.Errorf("Commands() lacks %s", want)
		}
	}
	w := newProject(Config{})
	for _, tc := range []struct{ family, command string }{
		{"network", "start_server"}, // another kind's command
		{"ssh_key", "change_protection"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("startAction(%s on a %s) did not panic", tc.command, tc.family)
				}
			}()
			w.startAction(ActionSpec{Command: tc.command, Resources: []Ref{{Type: tc.family, ID: 1}}})
		}()
	}
}

// TestReferenceActionCommands: the reference lists the commands each kind's
// actions have, as the kinds declare them.
func TestReferenceActionCommands(t *testing.T) {
	var rows [][]string
	list, _ := kinds()
	byFamily := commandsByFamily(list)
	for _, k := range list {
		var cmds []string
		for _, c := range byFamily[k.name] {
			cmds = append(cmds, refdoc.Code(c))
		}
		if len(cmds) > 0 {
			rows = append(rows, []string{refdoc.Code(k.name), strings.Join(cmds, ", ")})
		}
	}
	refdoc.Check(t, "docs/reference/fakecloud/faults-and-scenarios.md", "action-commands", refdoc.Table([]string{"kind", "commands"}, rows))
}
