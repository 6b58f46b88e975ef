// Package faults makes the simulated API misbehave on purpose: fault rules
// make matching requests fail, stall or drop, and action faults make
// actions fail or run longer. It decides what happens; fakecloud writes
// the API's error envelope.
package faults

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/jsontime"
)

// Rule is a request fault: which requests it matches and what they get.
// The first active rule that matches a request applies to it.
type Rule struct {
	ID   int    `json:"id,omitempty"`   // set when added
	Name string `json:"name,omitempty"` // free text, shown in the journal

	// Match.
	Method     string `json:"method,omitempty"`      // GET, POST, ...; empty or * for any
	Path       string `json:"path"`                  // "/servers/{id}", "/servers/*/actions/poweron", "/load_balancers/**"
	ResourceID int64  `json:"resource_id,omitempty"` // only requests naming this ID in the path
	UserAgent  string `json:"user_agent,omitempty"`  // only requests whose User-Agent contains this, e.g. hcloud-ccm/

	// Effect.
	Status      int               `json:"status,omitempty"`       // answer with this status...
	Code        string            `json:"code,omitempty"`         // ...and error code (default: the API's code for the status)
	Message     string            `json:"message,omitempty"`      // ...and message
	PlainBody   bool              `json:"plain_body,omitempty"`   // answer text/plain instead of the JSON envelope
	Latency     jsontime.Duration `json:"latency,omitempty"`      // delay before answering (or before serving, with no status)
	Hang        bool              `json:"hang,omitempty"`         // never answer, until the client gives up
	Drop        bool              `json:"drop,omitempty"`         // close the connection without an answer
	AfterCommit bool              `json:"after_commit,omitempty"` // apply the request, then answer with the error (or, with hang, never answer)

	// When.
	Skip        int               `json:"skip,omitempty"`        // let the first N matching requests through, then apply
	Count       int               `json:"count,omitempty"`       // the first N matching requests (after skip); 0 for all
	Probability float64           `json:"probability,omitempty"` // chance to apply, 0 < p <= 1 (seeded); 0 means always
	Start       jsontime.Duration `json:"start,omitempty"`       // active from this long after it is added
	For         jsontime.Duration `json:"for,omitempty"`         // and for this long; 0 until removed

	// State, as List reports it.
	Hits    int       `json:"hits"`              // requests it applied to
	Skipped int       `json:"skipped,omitempty"` // requests it let through for skip
	Added   time.Time `json:"added,omitzero"`    // when it was added
}

// ActionFault makes actions of a command fail or run longer.
type ActionFault struct {
	ID      int    `json:"id,omitempty"`
	Command string `json:"command"`         // e.g. add_target; * for every command
	Skip    int    `json:"skip,omitempty"`  // let the next N such actions run normally first
	Count   int    `json:"count,omitempty"` // the next N such actions (after skip); 0 for all
	// ErrorCode, when set, ends the action in error with this code.
	ErrorCode    string            `json:"error_code,omitempty"`
	ErrorMessage string            `json:"error_message,omitempty"`
	Delay        jsontime.Duration `json:"delay,omitempty"` // keeps the action running this much longer
	Start        jsontime.Duration `json:"start,omitempty"` // active from this long after it is added
	For          jsontime.Duration `json:"for,omitempty"`   // and for this long; 0 until removed
	Hits         int               `json:"hits"`
	Skipped      int               `json:"skipped,omitempty"`
	Added        time.Time         `json:"added,omitzero"`
}

// CodeStatus tells the rules about the API's error codes: the HTTP status
// a code is answered with, and whether the API that serves path (a
// rule's path; "" for action faults) knows the code at all.
type CodeStatus func(path, code string) (status int, known bool)

var ruleMethods = []string{"", "*", "GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"}

// validate reports every problem of a rule at once, naming the field.
func (r *Rule) validate(codes CodeStatus) error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	r.Method = strings.ToUpper(r.Method)
	if !slices.Contains(ruleMethods, r.Method) {
		bad("method", "%q is not an HTTP method or *", r.Method)
	}
	if !strings.HasPrefix(r.Path, "/") {
		bad("path", "%q must start with /, e.g. /servers/{id}", r.Path)
	}
	if segs := strings.Split(strings.Trim(r.Path, "/"), "/"); slices.Contains(segs[:len(segs)-1], "**") {
		bad("path", "%q has ** before its end; ** matches the rest of a path, e.g. /load_balancers/**", r.Path)
	}
	for seg := range strings.SplitSeq(strings.Trim(r.Path, "/"), "/") {
		if seg != "*" && seg != "**" && strings.Contains(seg, "*") {
			bad("path", "%q: * and ** stand for whole segments, e.g. /servers/*/actions/poweron", r.Path)
			break
		}
	}
	if r.ResourceID < 0 {
		bad("resource_id", "must be positive")
	}
	status, known := codes(r.Path, r.Code)
	if r.Code != "" && r.Status == 0 {
		r.Status = status
	}
	if r.Status != 0 && (r.Status < 400 || r.Status > 599) {
		bad("status", "%d is not an error status (400-599)", r.Status)
	}
	if r.Code != "" && !known {
		bad("code", "%q is not an error code of the API, e.g. server_error, invalid_input or locked", r.Code)
	}
	for _, d := range []struct {
		field string
		v     jsontime.Duration
	}{{"latency", r.Latency}, {"start", r.Start}, {"for", r.For}} {
		if d.v < 0 {
			bad(d.field, "must not be negative")
		}
	}
	effects := 0
	for _, on := range []bool{r.Status != 0, r.Hang, r.Drop} {
		if on {
			effects++
		}
	}
	if effects > 1 {
		bad("status", "status, hang and drop exclude each other")
	}
	if effects == 0 && r.Latency == 0 {
		bad("status", "a rule needs an effect: status (or code), latency, hang or drop")
	}
	if r.AfterCommit && r.Status == 0 && !r.Hang {
		bad("after_commit", "needs a status or code to answer with after the change is applied, or hang")
	}
	if r.AfterCommit && r.Method != "" && r.Method != "*" && !changes(r.Method) {
		bad("after_commit", "a %s commits nothing; give a method that changes something (POST, PUT, DELETE), or none", r.Method)
	}
	if r.PlainBody && r.Status == 0 {
		bad("plain_body", "needs a status")
	}
	if r.Count < 0 {
		bad("count", "must be 0 (every request) or more")
	}
	if r.Skip < 0 {
		bad("skip", "must be 0 (apply from the first request) or more")
	}
	if r.Probability < 0 || r.Probability > 1 {
		bad("probability", "%v is not between 0 and 1", r.Probability)
	}
	return errors.Join(errs...)
}

func (a *ActionFault) validate(codes CodeStatus, commands []string) error {
	var errs []error
	switch {
	case a.Command == "":
		errs = append(errs, errors.New("command: is required, e.g. add_target or *"))
	case commands != nil && a.Command != "*" && !slices.Contains(commands, a.Command):
		errs = append(errs, fmt.Errorf("command: %q is not the command of an action fakecloud records; one of *, %s", a.Command, strings.Join(commands, ", ")))
	}
	if a.Count < 0 {
		errs = append(errs, errors.New("count: must be 0 (every action) or more"))
	}
	if a.Skip < 0 {
		errs = append(errs, errors.New("skip: must be 0 (apply from the next action) or more"))
	}
	if a.ErrorCode == "" && a.Delay == 0 {
		errs = append(errs, errors.New("error_code: an action fault needs error_code or delay"))
	}
	if _, known := codes("", a.ErrorCode); a.ErrorCode != "" && !known {
		errs = append(errs, fmt.Errorf("error_code: %q is not an error code of the API, e.g. server_error or action_failed", a.ErrorCode))
	}
	if a.Delay < 0 || a.Start < 0 || a.For < 0 {
		errs = append(errs, errors.New("delay, start, for: must not be negative"))
	}
	return errors.Join(errs...)
}

// activeAt reports whether a window that opens start after added and
// lasts for (0: forever) is open at now.
func activeAt(now, added time.Time, start, dur jsontime.Duration) bool {
	if now.Before(added.Add(time.Duration(start))) {
		return false
	}
	return dur == 0 || now.Before(added.Add(time.Duration(start+dur)))
}

// pathMatches matches a path against a pattern whose segments are literal,
// {name} or * (one segment), or ** (the rest, possibly empty).
func pathMatches(pattern, path string) bool {
	pp := strings.Split(strings.Trim(pattern, "/"), "/")
	ps := strings.Split(strings.Trim(path, "/"), "/")
	for i, seg := range pp {
		if seg == "**" {
			return true
		}
		if i >= len(ps) {
			return false
		}
		if seg == "*" || (strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}")) {
			continue
		}
		if seg != ps[i] {
			return false
		}
	}
	return len(pp) == len(ps)
}

// pathNamesID reports whether a path segment is the ID.
func pathNamesID(path string, id int64) bool {
	want := fmt.Sprint(id)
	for seg := range strings.SplitSeq(path, "/") {
		if seg == want {
			return true
		}
	}
	return false
}
