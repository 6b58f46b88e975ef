// Command parity runs make parity, the live API parity kit: the
// scenarios of package parity against an in-process fakecloud, compared
// with the snapshots in testdata/parity (the default), or against
// api.hetzner.cloud with -live. See docs/explanation/parity.md.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/hcloudlab/hcloud-ccm/parity"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second interrupt ends the process at once, cleanup or not
	}()
	os.Exit(run(ctx, os.Args[1:], env{getenv: os.Getenv, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, liveEndpoint: parity.LiveEndpoint}))
}

// env is what the command takes from its process, so tests can give
// their own (and a fakecloud for the live API's endpoint).
type env struct {
	getenv         func(string) string
	stdin          io.Reader
	stdout, stderr io.Writer
	liveEndpoint   string
}

// The exit codes.
const (
	exitOK     = 0
	exitFailed = 1 // a difference, a failed scenario or cleanup, no confirmation
	exitUsage  = 2 // bad flags, or a refusal
)

type options struct {
	live, yes, record, sweep, list bool
	match                          *regexp.Regexp
	location, dir                  string
	feedWait                       time.Duration
}

func run(ctx context.Context, args []string, e env) int {
	o, err := parseFlags(args, e.stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(e.stderr, "parity:", err)
		}
		return exitUsage
	}
	if o.list {
		for _, name := range parity.ScenarioNames(o.match) {
			fmt.Fprintln(e.stdout, name)
		}
		return exitOK
	}
	token := e.getenv("HCLOUD_TOKEN")
	switch {
	case o.sweep && !o.live:
		fmt.Fprintln(e.stderr, "parity: -sweep removes leftovers from the live API: give -live too, with HCLOUD_TOKEN set")
		return exitUsage
	case o.live && token == "":
		fmt.Fprintln(e.stderr, "parity: -live needs HCLOUD_TOKEN (a read and write token of a project you may spend a few cents in); nothing was done")
		return exitUsage
	}
	if o.live {
		return runLive(ctx, o, e, token)
	}
	return report(e, o, parity.Run(ctx, parity.Config{
		Open: func() (*parity.Target, error) {
			t, err := parity.OpenFakecloud()
			if t != nil {
				t.Timing.FeedWait = o.feedWait
			}
			return t, err
		},
		Location: o.location, Match: o.match, Record: o.record, Dir: o.dir, RunID: parity.NewRunID(), Log: e.stderr,
	}))
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("parity", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.live, "live", false, "run against api.hetzner.cloud with HCLOUD_TOKEN (creates billable resources; prints the plan and asks first)")
	fs.BoolVar(&o.yes, "yes", false, "with -live: go on without asking")
	fs.BoolVar(&o.record, "record", false, "write the snapshots (source live with -live, else fakecloud) instead of comparing with them")
	fs.BoolVar(&o.sweep, "sweep", false, "with -live: delete what any run left (label "+parity.KitSelector+") and print it; runs no scenario")
	fs.BoolVar(&o.list, "list", false, "print the scenarios -run selects and exit")
	runExpr := fs.String("run", "", "regular expression: the scenarios to run (default all)")
	fs.StringVar(&o.location, "location", "fsn1", "location of everything created; the server type is the cheapest offered there")
	fs.StringVar(&o.dir, "dir", "testdata/parity", "directory of the snapshots")
	fs.DurationVar(&o.feedWait, "feed-wait", -1, "how long check 3 waits before it looks for delete_server again (default 60s with -live, 0 against fakecloud)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *runExpr != "" {
		re, err := regexp.Compile(*runExpr)
		if err != nil {
			return o, fmt.Errorf("-run: %w", err)
		}
		o.match = re
	}
	if len(parity.ScenarioNames(o.match)) == 0 {
		return o, fmt.Errorf("-run %q selects no scenario", *runExpr)
	}
	if o.feedWait < 0 {
		o.feedWait = 0
		if o.live {
			o.feedWait = parity.LiveTiming.FeedWait
		}
	}
	return o, nil
}

// runLive prints the plan, asks, and runs against the live API.
func runLive(ctx context.Context, o options, e env, token string) int {
	live := func() *parity.Target {
		t := parity.Live(e.liveEndpoint, token)
		t.Timing.FeedWait = o.feedWait
		return t
	}
	if o.sweep {
		cctx, cancel := context.WithTimeout(ctx, parity.CleanupTimeout)
		defer cancel()
		removed, err := parity.Sweep(cctx, live(), parity.KitSelector, nil)
		for _, r := range removed {
			fmt.Fprintln(e.stdout, "removed", r)
		}
		fmt.Fprintf(e.stdout, "%d removed\n", len(removed))
		if err != nil {
			fmt.Fprintln(e.stderr, "parity: sweep:", err)
			return exitFailed
		}
		return exitOK
	}
	runID := parity.NewRunID()
	plan, err := parity.MakePlan(ctx, live(), o.location, o.match)
	if err != nil {
		fmt.Fprintln(e.stderr, "parity: plan:", err)
		return exitFailed
	}
	plan.Write(e.stdout, runID)
	if !o.yes {
		fmt.Fprint(e.stdout, "Type yes to go on: ")
		line, _ := bufio.NewReader(e.stdin).ReadString('\n')
		if strings.TrimSpace(line) != "yes" {
			fmt.Fprintln(e.stdout, "Not confirmed: nothing was created.")
			return exitFailed
		}
	}
	return report(e, o, parity.Run(ctx, parity.Config{
		Open:     func() (*parity.Target, error) { return live(), nil },
		Location: o.location, Match: o.match, Record: o.record, Dir: o.dir, RunID: runID, Log: e.stderr,
	}))
}

// report prints each scenario's outcome and returns the exit code.
func report(e env, o options, results []parity.Result) int {
	for _, r := range results {
		switch {
		case r.Err != nil:
			fmt.Fprintf(e.stdout, "FAIL %s: %v\n", r.Scenario, r.Err)
		case r.Diff != "":
			fmt.Fprintf(e.stdout, "DIFF %s (-%s +run):\n%s\n", r.Scenario, parity.SnapshotPath(o.dir, r.Scenario), r.Diff)
		case r.Written != "":
			fmt.Fprintf(e.stdout, "ok   %s: wrote %s\n", r.Scenario, r.Written)
		default:
			fmt.Fprintf(e.stdout, "ok   %s: reproduces %s\n", r.Scenario, parity.SnapshotPath(o.dir, r.Scenario))
		}
	}
	if len(parity.Failed(results)) > 0 {
		return exitFailed
	}
	return exitOK
}
