package parity

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Config is one run of the kit.
type Config struct {
	// Open gives the target of one scenario: a fresh fakecloud each
	// time, or the live API.
	Open     func() (*Target, error)
	Location string
	Match    *regexp.Regexp // the scenarios to run; nil: all
	Record   bool           // write the snapshots instead of comparing
	Dir      string         // where the snapshots are (testdata/parity)
	RunID    string         // in every name and in the run label
	Log      io.Writer      // progress and what the cleanup removed; nil: none
	Now      func() time.Time
}

// Result is one scenario's outcome.
type Result struct {
	Scenario string
	Diff     string    // against its snapshot (-snapshot +run); empty when the run reproduces it
	Written  string    // the snapshot file written, with Record
	Removed  []string  // what the cleanup found left and removed
	Snapshot *Snapshot // what the run recorded, when it ran to the end
	Err      error
}

// OK tells whether the scenario ran, cleaned up and matched.
func (r Result) OK() bool { return r.Err == nil && r.Diff == "" }

// CleanupTimeout bounds a scenario's cleanup, which runs on a fresh
// context when the run's is cancelled.
const CleanupTimeout = 5 * time.Minute

// NewRunID is a fresh run ID: lower case letters and digits, valid in a
// name and in a label value.
func NewRunID() string {
	return "r" + strings.ToLower(rand.Text()[:10])
}

// Run runs the selected scenarios one after the other. Each runs on a
// target of its own from cfg.Open and is cleaned up however it ends;
// an interrupted run stops at the scenario it is in.
func Run(ctx context.Context, cfg Config) []Result {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	var results []Result
	for _, sc := range selected(cfg.Match) {
		if ctx.Err() != nil {
			results = append(results, Result{Scenario: sc.name, Err: ctx.Err()})
			continue
		}
		fmt.Fprintf(cfg.Log, "==> %s: %s\n", sc.name, sc.about)
		results = append(results, runOne(ctx, cfg, sc))
	}
	return results
}

func runOne(ctx context.Context, cfg Config, sc scenario) (res Result) {
	res.Scenario = sc.name
	t, err := cfg.Open()
	if err != nil {
		res.Err = fmt.Errorf("open the target: %w", err)
		return res
	}
	defer t.Close()
	s, err := newSession(ctx, t, cfg.RunID, cfg.Location)
	if err != nil {
		res.Err = err
		return res
	}
	s.log = cfg.Log
	defer s.close()
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), CleanupTimeout)
		defer cancel()
		removed, err := Sweep(cctx, t, s.runSelector(), s.primaryIPs)
		res.Removed = removed
		for _, r := range removed {
			fmt.Fprintf(cfg.Log, "    cleanup removed %s\n", r)
		}
		if err != nil {
			res.Err = errors.Join(res.Err, fmt.Errorf("clean up %s: %w", sc.name, err))
		}
	}()
	if err := sc.run(ctx, s); err != nil {
		res.Err = err
		return res
	}
	snap := s.snapshot(sc.name)
	if t.Source == SourceLive {
		snap.Recorded = cfg.Now().UTC().Format(time.RFC3339)
	}
	res.Snapshot = snap
	want, err := ReadSnapshot(cfg.Dir, sc.name)
	// A public record is written by hand from what was seen: only a live
	// recording replaces it.
	keep := err == nil && want.Source == SourcePublicRecord && t.Source != SourceLive
	if cfg.Record && !keep {
		res.Written, res.Err = WriteSnapshot(cfg.Dir, snap)
		return res
	}
	if err != nil {
		res.Err = err
		return res
	}
	res.Diff, res.Err = Diff(want, snap)
	return res
}

// Failed are the results that are not OK.
func Failed(results []Result) []Result {
	return slices.DeleteFunc(slices.Clone(results), Result.OK)
}
