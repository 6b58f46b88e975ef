package parity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/parity/internal/exchange"
	"github.com/hcloudlab/hcloud-ccm/parity/internal/normalise"
)

// The labels every resource the kit creates carries: the kit's, which
// -sweep looks for, and the run's, which the run's cleanup looks for.
const (
	KitLabel = "parity.hcloudlab.dev/kit"
	RunLabel = "parity.hcloudlab.dev/run"
)

// KitSelector selects everything any run of the kit created.
const KitSelector = KitLabel + "=1"

// session is one scenario's run against one target. c is recorded: its
// exchanges are the snapshot's steps. quiet is not: it waits, polls,
// checks the feed and cleans up, whose requests depend on timing or on
// what else the project holds.
type session struct {
	t     *Target
	run   string
	rec   *exchange.Recorder
	c     *hcloud.Client
	quiet *hcloud.Client
	cat   *catalogue

	steps      []rawStep
	pending    []pendingAction // started by a step that left them running
	started    []int64         // every action the steps started, in order
	verdicts   []Verdict
	notes      []string
	notLive    []string
	keep       []string // addresses and ranges the scenario chose
	primaryIPs []int64  // the servers' own primary IPs, which may carry no label
	feedSeen   map[int64]bool
	closers    []func()
	log        io.Writer // each step's name as it runs
}

type rawStep struct {
	name, only string
	ex         exchange.Exchange
	actions    []json.RawMessage
}

type pendingAction struct {
	step int
	id   int64
}

func newSession(ctx context.Context, t *Target, run, location string) (*session, error) {
	s := &session{t: t, run: run, rec: &exchange.Recorder{}, feedSeen: map[int64]bool{}, log: io.Discard}
	s.c = t.client(s.rec.Wrap(t.transport(), t.Endpoint))
	s.quiet = t.client(t.transport())
	cat, err := readCatalogue(ctx, s.quiet, location)
	if err != nil {
		return nil, err
	}
	s.cat = cat
	return s, nil
}

func (s *session) close() {
	for _, c := range s.closers {
		c()
	}
}

// labels are the labels of everything the session creates.
func (s *session) labels() map[string]string {
	return map[string]string{KitLabel: "1", RunLabel: s.run}
}

// runSelector selects what this run created.
func (s *session) runSelector() string { return RunLabel + "=" + s.run }

// name is a resource's name: the kit's prefix, the run and what it is for.
func (s *session) name(what string) string { return "parity-" + s.run + "-" + what }

// step runs fn, records the exchanges it made as steps called name, then
// waits until every action their answers started has finished and
// records each one's final state. fn's error is returned, for the
// scenario to judge: an answer the scenario provokes is not a failure.
func (s *session) step(ctx context.Context, name string, fn func(c *hcloud.Client) error) error {
	err := s.record(name, "", fn)
	if werr := s.settle(ctx); werr != nil {
		return werr
	}
	return err
}

// namedStep is a step of a scenario that needs nothing from the steps
// before it but what its closure holds.
type namedStep struct {
	name string
	do   func(c *hcloud.Client) error
}

// sequence runs steps in order and stops at the first error.
func (s *session) sequence(ctx context.Context, steps []namedStep) error {
	for _, st := range steps {
		if err := s.step(ctx, st.name, st.do); err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
	}
	return nil
}

// provoke runs steps that provoke an error answer: their errors are
// what the snapshot records, not failures of the scenario. A failed
// wait for an action is one.
func (s *session) provoke(ctx context.Context, steps []namedStep) error {
	for _, st := range steps {
		_ = s.record(st.name, "", st.do)
		if err := s.settle(ctx); err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
	}
	return nil
}

// stepRunning is step without the wait: the actions keep running into
// the next step (to meet a locked resource). The next step waits for them.
func (s *session) stepRunning(name string, fn func(c *hcloud.Client) error) error {
	return s.record(name, "", fn)
}

func (s *session) record(name, only string, fn func(c *hcloud.Client) error) error {
	return s.recordOn(s.c, name, only, fn)
}

// recordOn records fn's exchanges on c, a client whose transport the
// session's recorder wraps; only marks steps not taken live.
func (s *session) recordOn(c *hcloud.Client, name, only string, fn func(c *hcloud.Client) error) error {
	fmt.Fprintf(s.log, "    %s\n", name)
	err := fn(c)
	for _, ex := range s.rec.Take() {
		s.steps = append(s.steps, rawStep{name: name, only: only, ex: ex})
		for _, id := range startedActions(ex.ResponseBody) {
			s.started = append(s.started, id)
			s.pending = append(s.pending, pendingAction{step: len(s.steps) - 1, id: id})
		}
	}
	return err
}

// settle waits for the pending actions and records their final states.
func (s *session) settle(ctx context.Context) error {
	for len(s.pending) > 0 {
		p := s.pending[0]
		final, err := s.waitAction(ctx, p.id)
		if err != nil {
			return err
		}
		s.steps[p.step].actions = append(s.steps[p.step].actions, final)
		s.pending = s.pending[1:]
	}
	return nil
}

// waitAction waits for an action to end and returns it as the API
// last showed it.
func (s *session) waitAction(ctx context.Context, id int64) (json.RawMessage, error) {
	_, resp, err := pollAction(ctx, s.quiet, s.t, id)
	if err != nil {
		return nil, err
	}
	var body struct {
		Action json.RawMessage `json:"action"`
	}
	data, err := io.ReadAll(resp.Body)
	if err == nil {
		err = json.Unmarshal(data, &body)
	}
	if err != nil {
		return nil, fmt.Errorf("read action %d: %w", id, err)
	}
	return body.Action, nil
}

// waitFor polls cond until it holds, at most within limit.
func (s *session) waitFor(ctx context.Context, what string, limit time.Duration, cond func() (bool, error)) error {
	err := poll(ctx, s.t.Clock, s.t.Timing.Poll, limit, cond)
	if errors.Is(err, errNotWithin) {
		return fmt.Errorf("%s: %w (%s)", what, err, limit)
	}
	return err
}

// startedActions are the IDs of the actions an answer started: its
// action and its next actions.
func startedActions(body []byte) []int64 {
	var v struct {
		Action *struct {
			ID int64 `json:"id"`
		} `json:"action"`
		NextActions []struct {
			ID int64 `json:"id"`
		} `json:"next_actions"`
	}
	if json.Unmarshal(body, &v) != nil {
		return nil
	}
	var ids []int64
	if v.Action != nil && v.Action.ID != 0 {
		ids = append(ids, v.Action.ID)
	}
	for _, a := range v.NextActions {
		ids = append(ids, a.ID)
	}
	return ids
}

// verdict records a feed check's verdict.
func (s *session) verdict(check, claim, verdict, evidence string) {
	s.verdicts = append(s.verdicts, Verdict{Check: check, Claim: claim, Verdict: verdict, Evidence: evidence})
}

// snapshot normalises what the session recorded, in order: each step's
// request (path, query, body), its answer, then its actions' final states.
func (s *session) snapshot(scenario string) *Snapshot {
	n := normalise.New()
	n.Substitute(s.run, "<run>")
	n.Keep(s.keep...)
	setup := strings.TrimPrefix(fmt.Sprintf("%s; location %s, server type %s (then %s), load balancer type %s",
		s.t.Setup, s.cat.location.Name, s.cat.serverType.Name, s.cat.nextType.Name, s.cat.lbType.Name), "; ")
	snap := &Snapshot{Scenario: scenario, Source: s.t.Source, Setup: setup, NotExercisedLive: s.notLive,
		Notes: s.notes, Steps: []Step{}, Verdicts: s.verdicts}
	for _, r := range s.steps {
		st := Step{Name: r.name, Only: r.only,
			Request: Request{Method: r.ex.Method, Path: n.Path(r.ex.Path), Query: n.Query(r.ex.Query), Body: n.JSON(r.ex.Body)}}
		st.Response = Response{Status: r.ex.Status, Body: n.JSON(r.ex.ResponseBody)}
		for _, a := range r.actions {
			st.Actions = append(st.Actions, n.JSONUnder("action", a))
		}
		snap.Steps = append(snap.Steps, st)
	}
	return snap
}

// errorCode is the API's error code of err, or err itself when the API
// gave none.
func errorCode(err error) string {
	var e hcloud.Error
	if errors.As(err, &e) {
		return string(e.Code)
	}
	return err.Error()
}
