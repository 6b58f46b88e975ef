// Command runc-wrapper runs runc without CAP_SYS_RESOURCE.
//
// A VM without CAP_SYS_RESOURCE cannot start privileged containers, such
// as kind nodes: runc fails with "unable to apply caps". The project's
// private dockerd uses this wrapper as its default runtime. It takes the
// capability out of the process spec of "create", "run" and "exec", then
// runs the real runc with the same arguments.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

const dropped = "CAP_SYS_RESOURCE"

// realRunc is where Debian installs runc; RUNC overrides it.
var realRunc = "/usr/sbin/runc"

func main() {
	if r := os.Getenv("RUNC"); r != "" {
		realRunc = r
	}
	if err := rewrite(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "runc-wrapper:", err)
		os.Exit(1)
	}
	err := syscall.Exec(realRunc, append([]string{realRunc}, os.Args[1:]...), os.Environ())
	fmt.Fprintln(os.Stderr, "runc-wrapper:", err)
	os.Exit(1)
}

// rewrite edits the spec that args name, if any.
func rewrite(args []string) error {
	cmd, bundle, process := command(args)
	switch cmd {
	case "create", "run":
		if bundle == "" {
			bundle = "."
		}
		return edit(filepath.Join(bundle, "config.json"), func(spec map[string]any) {
			if p, ok := spec["process"].(map[string]any); ok {
				dropCap(p)
			}
		})
	case "exec":
		if process != "" {
			return edit(process, dropCap)
		}
	}
	return nil
}

// command finds the subcommand and its --bundle/-b and --process/-p values.
func command(args []string) (cmd, bundle, process string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		value := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case a == "--bundle" || a == "-b":
			bundle = value()
		case len(a) > 9 && a[:9] == "--bundle=":
			bundle = a[9:]
		case a == "--process" || a == "-p":
			process = value()
		case len(a) > 10 && a[:10] == "--process=":
			process = a[10:]
		case cmd == "" && (a == "--root" || a == "--log" || a == "--log-format" || a == "--criu" || a == "--rootless"):
			value() // global flags with a value, before the subcommand
		case cmd == "" && len(a) > 0 && a[0] != '-':
			cmd = a
		}
	}
	return cmd, bundle, process
}

func edit(path string, change func(map[string]any)) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	change(doc)
	out, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o600)
}

// dropCap removes the capability from every set of a process spec.
func dropCap(process map[string]any) {
	caps, ok := process["capabilities"].(map[string]any)
	if !ok {
		return
	}
	for set, v := range caps {
		list, ok := v.([]any)
		if !ok {
			continue
		}
		caps[set] = slices.DeleteFunc(list, func(c any) bool { return c == dropped })
	}
}
