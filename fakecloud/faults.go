package fakecloud

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
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

	// Effect.
	Status      int      `json:"status,omitempty"`       // answer with this status...
	Code        string   `json:"code,omitempty"`         // ...and error code (default: the API's code for the status)
	Message     string   `json:"message,omitempty"`      // ...and message
	PlainBody   bool     `json:"plain_body,omitempty"`   // answer text/plain instead of the JSON envelope
	Latency     Duration `json:"latency,omitempty"`      // delay before answering (or before serving, with no status)
	Hang        bool     `json:"hang,omitempty"`         // never answer, until the client gives up
	Drop        bool     `json:"drop,omitempty"`         // close the connection without an answer
	AfterCommit bool     `json:"after_commit,omitempty"` // apply the request, then answer with the error

	// When.
	Count       int      `json:"count,omitempty"`       // the first N matching requests; 0 for all
	Probability float64  `json:"probability,omitempty"` // chance to apply, 0 < p <= 1 (seeded); 0 means always
	Start       Duration `json:"start,omitempty"`       // active from this long after it is added
	For         Duration `json:"for,omitempty"`         // and for this long; 0 until removed

	// State, reported by Faults.
	Hits  int       `json:"hits"`           // requests it applied to
	Added time.Time `json:"added,omitzero"` // when it was added
}

// ActionFault makes actions of a command fail or run longer.
type ActionFault struct {
	ID      int    `json:"id,omitempty"`
	Command string `json:"command"`         // e.g. add_target; * for every command
	Count   int    `json:"count,omitempty"` // the next N such actions; 0 for all
	// ErrorCode, when set, ends the action in error with this code.
	ErrorCode    string    `json:"error_code,omitempty"`
	ErrorMessage string    `json:"error_message,omitempty"`
	Delay        Duration  `json:"delay,omitempty"` // keeps the action running this much longer
	Start        Duration  `json:"start,omitempty"` // active from this long after it is added
	For          Duration  `json:"for,omitempty"`   // and for this long; 0 until removed
	Hits         int       `json:"hits"`
	Added        time.Time `json:"added,omitzero"`
}

var ruleMethods = []string{"", "*", "GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"}

// validate reports every problem of a rule at once, naming the field.
func (r *Rule) validate() error {
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
	if r.ResourceID < 0 {
		bad("resource_id", "must be positive")
	}
	if r.Code != "" && r.Status == 0 {
		r.Status = StatusForCode(r.Code)
	}
	if r.Status != 0 && (r.Status < 400 || r.Status > 599) {
		bad("status", "%d is not an error status (400-599)", r.Status)
	}
	if r.Code != "" && !knownCodes[r.Code] {
		bad("code", "%q is not an error code of the API, e.g. server_error, invalid_input or locked", r.Code)
	}
	for _, d := range []struct {
		field string
		v     Duration
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
	if r.AfterCommit && r.Status == 0 {
		bad("after_commit", "needs a status or code to answer with after the change is applied")
	}
	if r.PlainBody && r.Status == 0 {
		bad("plain_body", "needs a status")
	}
	if r.Count < 0 {
		bad("count", "must be 0 (every request) or more")
	}
	if r.Probability < 0 || r.Probability > 1 {
		bad("probability", "%v is not between 0 and 1", r.Probability)
	}
	return errors.Join(errs...)
}

func (a *ActionFault) validate() error {
	var errs []error
	if a.Command == "" {
		errs = append(errs, errors.New("command: is required, e.g. add_target or *"))
	}
	if a.Count < 0 {
		errs = append(errs, errors.New("count: must be 0 (every action) or more"))
	}
	if a.ErrorCode == "" && a.Delay == 0 {
		errs = append(errs, errors.New("error_code: an action fault needs error_code or delay"))
	}
	if a.ErrorCode != "" && !knownCodes[a.ErrorCode] {
		errs = append(errs, fmt.Errorf("error_code: %q is not an error code of the API, e.g. server_error or action_failed", a.ErrorCode))
	}
	if a.Delay < 0 || a.Start < 0 || a.For < 0 {
		errs = append(errs, errors.New("delay, start, for: must not be negative"))
	}
	return errors.Join(errs...)
}

// faultSet holds the rules; one mutex keeps hit counts exact.
type faultSet struct {
	mu      sync.Mutex
	nextID  int
	rules   []*Rule
	actions []*ActionFault
	rng     *rand.Rand
	now     func() time.Time
}

func newFaultSet(seed uint64, now func() time.Time) *faultSet {
	return &faultSet{rng: rand.New(rand.NewPCG(seed, 0x6661756c74)), now: now}
}

func (fs *faultSet) add(r Rule) (Rule, error) {
	if err := r.validate(); err != nil {
		return Rule{}, err
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.nextID++
	r.ID, r.Hits, r.Added = fs.nextID, 0, fs.now()
	fs.rules = append(fs.rules, &r)
	return r, nil
}

func (fs *faultSet) addAction(a ActionFault) (ActionFault, error) {
	if err := a.validate(); err != nil {
		return ActionFault{}, err
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.nextID++
	a.ID, a.Hits, a.Added = fs.nextID, 0, fs.now()
	fs.actions = append(fs.actions, &a)
	return a, nil
}

// remove deletes the rule or action fault with the ID.
func (fs *faultSet) remove(id int) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for i, r := range fs.rules {
		if r.ID == id {
			fs.rules = append(fs.rules[:i], fs.rules[i+1:]...)
			return true
		}
	}
	for i, a := range fs.actions {
		if a.ID == id {
			fs.actions = append(fs.actions[:i], fs.actions[i+1:]...)
			return true
		}
	}
	return false
}

func (fs *faultSet) clear() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.rules, fs.actions = nil, nil
}

// list returns copies of the rules and action faults.
func (fs *faultSet) list() ([]Rule, []ActionFault) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	rules := make([]Rule, 0, len(fs.rules))
	for _, r := range fs.rules {
		rules = append(rules, *r)
	}
	actions := make([]ActionFault, 0, len(fs.actions))
	for _, a := range fs.actions {
		actions = append(actions, *a)
	}
	return rules, actions
}

// match returns the first active rule for a request and counts the hit;
// path is the request's path without the /v1 prefix.
func (fs *faultSet) match(method, path string) (Rule, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	now := fs.now()
	for _, r := range fs.rules {
		if r.Count > 0 && r.Hits >= r.Count {
			continue
		}
		if !activeAt(now, r.Added, r.Start, r.For) {
			continue
		}
		if r.Method != "" && r.Method != "*" && r.Method != method {
			continue
		}
		if !pathMatches(r.Path, path) || (r.ResourceID != 0 && !pathNamesID(path, r.ResourceID)) {
			continue
		}
		if r.Probability > 0 && fs.rng.Float64() >= r.Probability {
			continue
		}
		r.Hits++
		return *r, true
	}
	return Rule{}, false
}

// unhit gives back a hit that did not apply (an after-commit rule whose
// request was refused anyway).
func (fs *faultSet) unhit(id int) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, r := range fs.rules {
		if r.ID == id && r.Hits > 0 {
			r.Hits--
		}
	}
}

// forAction returns what happens to a new action of a command: an error to
// end in, and extra running time.
func (fs *faultSet) forAction(command string) (code, message string, delay time.Duration) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	now := fs.now()
	for _, a := range fs.actions {
		if a.Count > 0 && a.Hits >= a.Count {
			continue
		}
		if !activeAt(now, a.Added, a.Start, a.For) {
			continue
		}
		if a.Command != "*" && a.Command != command {
			continue
		}
		a.Hits++
		msg := a.ErrorMessage
		if a.ErrorCode != "" && msg == "" {
			msg = "action failed: " + a.ErrorCode + " (injected by fakecloud)"
		}
		return a.ErrorCode, msg, time.Duration(a.Delay)
	}
	return "", "", 0
}

// activeAt reports whether a window that opens start after added and
// lasts for (0: forever) is open at now.
func activeAt(now, added time.Time, start, dur Duration) bool {
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

// apiPath is the request path without the /v1 prefix.
func apiPath(r *http.Request) string {
	if p, ok := strings.CutPrefix(r.URL.Path, "/v1"); ok && (p == "" || p[0] == '/') {
		return p
	}
	return r.URL.Path
}
