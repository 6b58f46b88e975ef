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

// dispatch runs a subcommand; with none (or only flags) it serves.
func dispatch(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	args = clientFlagsLast(args)
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return run(ctx, args, getenv, stderr, nil)
	}
	switch args[0] {
	case "serve":
		return run(ctx, args[1:], getenv, stderr, nil)
	case "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return client(ctx, args, getenv, stdout, stderr)
}

// clientFlagsLast moves leading --url and --admin-token flags behind the
// subcommand, so "fakecloud --url U faults" works like "fakecloud faults --url U".
func clientFlagsLast(args []string) []string {
	var lead []string
	for len(args) > 0 {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[0], "-"), "=")
		if !strings.HasPrefix(args[0], "-") || (name != "url" && name != "admin-token") {
			break
		}
		n := 2
		if hasValue || len(args) < 2 {
			n = 1
		}
		lead, args = append(lead, args[:n]...), args[n:]
	}
	if len(lead) == 0 || len(args) == 0 {
		return append(lead, args...)
	}
	return append(append([]string{args[0]}, lead...), args[1:]...)
}

const usage = `fakecloud: a simulated Hetzner Cloud API.

Serve:
  fakecloud [serve] [flags]            serve the API (fakecloud serve -h lists the flags)

Script a running fakecloud (flags --url, env FAKECLOUD_URL, default http://127.0.0.1:8080;
--admin-token, env FAKECLOUD_ADMIN_TOKEN):
  fakecloud faults                     list fault rules and action faults with their hits
  fakecloud faults add RULE            add a request fault, RULE as YAML or JSON (or -f FILE)
  fakecloud faults add-action FAULT    make actions fail or run longer
  fakecloud faults rm ID               remove one
  fakecloud faults clear               remove all
  fakecloud event EVENT                make something happen behind the clients' back
  fakecloud scenario FILE              run a scenario file
  fakecloud rate-limit [--remaining N] [--refill R]
  fakecloud reset [empty|seed]         empty the world, or go back to the seed world
  fakecloud seed FILE                  replace the world with a seed world
  fakecloud state                      print the world as JSON (a snapshot)
  fakecloud state import FILE          replace the world with a snapshot
  fakecloud journal [--follow] [--method M] [--template T] [--status N] [--limit N]
  fakecloud counters                   request counts by method, route and status
`
