// Command fakecloud serves a simulated Hetzner Cloud API, and scripts a
// running one through its admin API.
//
//	fakecloud [serve] --listen 127.0.0.1:8080 --seed testdata/worlds/small.yaml
//	fakecloud faults add '{path: /servers/**, status: 500, count: 3}'
//	fakecloud event '{type: power_off_server, server_name: worker-1}'
//	fakecloud journal --follow
//
// Every flag has an environment fallback, named in its help text.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := dispatch(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "fakecloud:", err)
		os.Exit(2)
	}
}

// dispatch runs the command that args name; with none (or only flags) it
// serves. An unknown command prints the table of commands.
func dispatch(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	args = clientFlagsLast(args)
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		args = append([]string{"version"}, args[1:]...)
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		args = append([]string{"serve"}, args...)
	}
	cmd, rest, ok := find(args)
	in := &invocation{name: args[0], args: rest, getenv: getenv, stdout: stdout, stderr: stderr}
	if !ok || cmd.admin {
		words, err := in.parseClient(args)
		if err != nil {
			return err
		}
		cmd, in.args, ok = find(words)
	}
	if !ok {
		printCommands(stderr)
		return fmt.Errorf("unknown command %q", in.name)
	}
	return cmd.run(ctx, in)
}
