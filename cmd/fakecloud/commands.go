package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/adminclient"
)

// command is one row of fakecloud's command line.
type command struct {
	name  string // the words that select it
	args  string // what follows them
	usage string // what it does, in one line
	admin bool   // scripts a running fakecloud: takes the client flags
	run   func(ctx context.Context, in *invocation) error
}

// commands is the command line, in the order help lists it.
func commands() []command {
	return []command{
		{"serve", "[flags]", "serve the API; the default command (fakecloud serve -h lists the flags)", false, serve},
		{"help", "", "print this list", false, help},
		{"version", "", "print the build and the API it simulates (also --version)", false, printVersion},
		{"faults", "", "list fault rules and action faults with their hits", true, listFaults},
		{"faults add", "RULE", "add a request fault, RULE as YAML or JSON (or -f FILE)", true, addFault("rule", (*adminclient.Client).AddFaultDoc)},
		{"faults add-action", "FAULT", "make actions fail or run longer", true, addFault("action_fault", (*adminclient.Client).AddActionFaultDoc)},
		{"faults rm", "ID", "remove one", true, removeFault},
		{"faults clear", "", "remove all", true, clearFaults},
		{"event", "EVENT", "make something happen behind the clients' back", true, applyEvent},
		{"scenario", "FILE", "run a scenario file", true, sendFile("scenario file", (*adminclient.Client).LoadScenarioDoc)},
		{"rate-limit", "[--remaining N] [--refill R]", "read the rate limit, or set its budget and refill rate", true, rateLimit},
		{"reset", "[empty|seed]", "empty the world, or go back to the seed world", true, reset},
		{"seed", "FILE", "replace the world with a seed world", true, sendFile("seed world file", (*adminclient.Client).SeedDoc)},
		{"state", "", "print the world as JSON (a snapshot)", true, exportState},
		{"state import", "FILE", "replace the world with a snapshot", true, sendFile("snapshot file", (*adminclient.Client).Import)},
		{"journal", "[--follow] [--method M] [--template T] [--status N] [--limit N]", "recent API requests; --follow keeps printing new ones", true, journal},
		{"counters", "", "request counts by method, route and status", true, counters},
	}
}

// find returns the command that args begin with, the one with the most
// words when two do, and the arguments after its words.
func find(args []string) (cmd command, rest []string, ok bool) {
	most := 0
	for _, c := range commands() {
		words := strings.Fields(c.name)
		if len(words) > most && len(words) <= len(args) && slices.Equal(words, args[:len(words)]) {
			cmd, rest, ok, most = c, args[len(words):], true, len(words)
		}
	}
	return cmd, rest, ok
}

// printCommands writes the table of commands.
func printCommands(w io.Writer) {
	fmt.Fprint(w, "fakecloud: a simulated Hetzner Cloud API.\n\nServe:\n")
	admin := false
	for _, c := range commands() {
		if c.admin && !admin {
			admin = true
			fmt.Fprint(w, "\nScript a running fakecloud (flags --url, env FAKECLOUD_URL, default http://127.0.0.1:8080;\n"+
				"--admin-token, env FAKECLOUD_ADMIN_TOKEN):\n")
		}
		if line := strings.TrimSpace("fakecloud " + c.name + " " + c.args); len(line) < usageColumn {
			fmt.Fprintf(w, "  %-*s%s\n", usageColumn, line, c.usage)
		} else {
			fmt.Fprintf(w, "  %s\n  %*s%s\n", line, usageColumn, "", c.usage)
		}
	}
}

// usageColumn is where a command's usage starts, after its synopsis.
const usageColumn = 37

func help(_ context.Context, in *invocation) error {
	printCommands(in.stdout)
	return nil
}

func serve(ctx context.Context, in *invocation) error {
	return run(ctx, in.args, in.getenv, in.stderr, nil)
}
