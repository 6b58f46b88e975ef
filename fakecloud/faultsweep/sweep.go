// Package faultsweep turns a clean run of a client against fakecloud into
// a fault sweep: each call the run made, failed each way the Hetzner Cloud
// API fails. The calls come from fakecloud's journal, so a call new in the
// client's code is swept with no new test code.
package faultsweep

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// Call is one call of a run: the N-th request with its method and route.
type Call struct {
	Method   string
	Template string // the route, e.g. /load_balancers/{id}/actions/add_target
	N        int    // from 1
	// Actions are the actions the call started on the clean run.
	Actions []Action
}

// Action is the N-th action of a command in a run.
type Action struct {
	Command string
	N       int // from 1
}

func (c Call) String() string { return fmt.Sprintf("%s %s #%d", c.Method, c.Template, c.N) }

// change reports whether the call asks for a change rather than a read.
func (c Call) change() bool { return c.Method != http.MethodGet && c.Method != http.MethodHead }

// Calls reads a run's calls from its journal entries, oldest first, keeping
// the requests whose User-Agent contains ua ("" keeps all).
func Calls(entries []fakecloud.JournalEntry, ua string) []Call {
	seen := map[string]int{}
	started := map[string]int{}
	var calls []Call
	for _, e := range entries {
		if !strings.Contains(e.UserAgent, ua) {
			continue
		}
		key := e.Method + " " + e.Template
		seen[key]++
		c := Call{Method: e.Method, Template: e.Template, N: seen[key]}
		for _, cmd := range e.Actions {
			started[cmd]++
			c.Actions = append(c.Actions, Action{Command: cmd, N: started[cmd]})
		}
		calls = append(calls, c)
	}
	return calls
}

// Kind is a way a call fails.
type Kind string

// The ways the API fails a call.
const (
	ServerError  Kind = "500"          // server_error
	Unavailable  Kind = "503"          // unavailable
	RateLimited  Kind = "429"          // rate_limit_exceeded, nothing remaining
	Conflict     Kind = "409"          // conflict: the resource changed meanwhile
	Locked       Kind = "423"          // locked: an action runs on the resource
	InvalidInput Kind = "422"          // invalid_input
	Hang         Kind = "hang"         // no answer until the client gives up
	AfterCommit  Kind = "after-commit" // the change is made, the answer is an error (504)
	ActionError  Kind = "action-error" // the action the call started ends in error
	ActionStuck  Kind = "action-stuck" // the action the call started runs on until lifted
	// Killed is no failure of the API: the call is served and its answer
	// held, so the client is killed (SIGKILL) right after the call, before
	// it learns the outcome.
	Killed Kind = "killed"
)

// Kinds is every way the API fails, in the order tables show them.
var Kinds = []Kind{ServerError, Unavailable, RateLimited, Conflict, Locked, InvalidInput, Hang, AfterCommit, ActionError, ActionStuck}

// order is the order of every kind in a table.
var order = append(append([]Kind{}, Kinds...), Killed)

// Applies reports whether the API fails the call that way: conflict,
// locked and after-commit only a change, invalid input only a change that
// sends a body (POST, PUT), the action kinds only a call that started an
// action.
func (k Kind) Applies(c Call) bool {
	switch k {
	case InvalidInput:
		return c.Method == http.MethodPost || c.Method == http.MethodPut
	case Conflict, Locked, AfterCommit:
		return c.change()
	case ActionError, ActionStuck:
		return len(c.Actions) > 0
	}
	return true
}

// Fault is one run of a sweep: from its call on, every request of the same
// method and route fails the kind's way until the fault is lifted.
type Fault struct {
	Call Call
	Kind Kind
}

func (f Fault) String() string { return f.Call.String() + ": " + string(f.Kind) }

// Faults is the sweep of a run's calls: each call with each kind that
// applies to it, in the calls' order.
func Faults(calls []Call, kinds []Kind) []Fault {
	var out []Fault
	for _, c := range calls {
		for _, k := range kinds {
			if k.Applies(c) {
				out = append(out, Fault{Call: c, Kind: k})
			}
		}
	}
	return out
}

// statusOf is the status each error kind answers with; fakecloud gives it
// the API's error code.
var statusOf = map[Kind]int{ServerError: 500, Unavailable: 503, RateLimited: 429, Conflict: 409, Locked: 423, InvalidInput: 422}

// Rule is the request rule of a fault for the client whose User-Agent
// contains ua; ok is false for the action kinds.
func (f Fault) Rule(ua string) (r fakecloud.Rule, ok bool) {
	r = fakecloud.Rule{Name: "sweep: " + f.String(), Method: f.Call.Method, Path: f.Call.Template,
		UserAgent: ua, Skip: f.Call.N - 1}
	switch f.Kind {
	case ServerError, Unavailable, RateLimited, Conflict, Locked, InvalidInput:
		r.Status = statusOf[f.Kind]
	case Hang:
		r.Hang = true
	case AfterCommit:
		r.Status, r.AfterCommit = 504, true
	case Killed:
		// Served, and the answer held until the client is killed; a read
		// changes nothing, so holding it unserved is the same.
		r.Hang, r.AfterCommit, r.Count = true, f.Call.change(), 1
	default:
		return fakecloud.Rule{}, false
	}
	return r, true
}

// ActionFault is the action fault of the action kinds: the first action
// the call started, and every later one of its command, ends in error or
// runs for stuck more; ok is false for the request kinds.
func (f Fault) ActionFault(stuck time.Duration) (a fakecloud.ActionFault, ok bool) {
	if len(f.Call.Actions) == 0 {
		return fakecloud.ActionFault{}, false
	}
	first := f.Call.Actions[0]
	a = fakecloud.ActionFault{Command: first.Command, Skip: first.N - 1}
	switch f.Kind {
	case ActionError:
		a.ErrorCode, a.ErrorMessage = "action_failed", "action failed (fault sweep: "+f.String()+")"
	case ActionStuck:
		a.Delay = fakecloud.Duration(stuck)
	default:
		return fakecloud.ActionFault{}, false
	}
	return a, true
}
