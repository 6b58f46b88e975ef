package world

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// started finds the commands the code starts or records: an action
// spec's Command, a recorded action, and the family helpers' command
// argument.
var started = regexp.MustCompile(`(?:Command: |RecordDone\(|(?:power|lbAction|networkAction|serverAction|serverActionNaming)\(id, |primaryIPAction\([^)]*?, |\bcommand :?= |status, command :?= "[a-z]+", )"([a-z_]+)"`)

// TestCommandsListed: Commands lists every command an operation starts,
// and no other, so an action fault cannot name one that never fires.
func TestCommandsListed(t *testing.T) {
	var files []string
	for _, dir := range []string{".", "internal/store", "internal/model"} {
		matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, matches...)
	}
	var found []string
	for _, f := range files {
		if filepath.Base(f) == "commands.go" || regexp.MustCompile(`_test\.go$`).MatchString(f) {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range started.FindAllStringSubmatch(string(data), -1) {
			if !slices.Contains(found, m[1]) {
				found = append(found, m[1])
			}
		}
	}
	slices.Sort(found)
	if !slices.Equal(found, Commands) {
		t.Errorf("the operations start %v; Commands lists %v", found, Commands)
	}
}
