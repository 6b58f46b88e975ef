package faults

import (
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Set holds the rules and action faults; one mutex keeps hit counts exact.
type Set struct {
	mu      sync.Mutex
	nextID  int
	rules   []*Rule
	actions []*ActionFault
	rng     *rand.Rand
	now     func() time.Time
	codes   CodeStatus
	// commands, when set, are the commands an action fault may name.
	commands []string
}

// New returns an empty Set whose probabilities draw from seed, whose
// windows read the time from now, and which checks error codes with codes.
func New(seed uint64, now func() time.Time, codes CodeStatus) *Set {
	return &Set{rng: rand.New(rand.NewPCG(seed, 0x6661756c74)), now: now, codes: codes}
}

// KnowCommands makes action faults name one of the commands (or *): a
// fault for a command no action has would be accepted and never fire.
func (fs *Set) KnowCommands(commands []string) { fs.commands = commands }

// Check reports every problem of a rule at once, naming each field.
func (fs *Set) Check(r Rule) error { return r.validate(fs.codes) }

// CheckAction reports every problem of an action fault at once.
func (fs *Set) CheckAction(a ActionFault) error { return a.validate(fs.codes, fs.commands) }

// Add checks a rule and appends it; it returns the rule with its ID.
func (fs *Set) Add(r Rule) (Rule, error) {
	if err := r.validate(fs.codes); err != nil {
		return Rule{}, err
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.nextID++
	r.ID, r.Hits, r.Skipped, r.Added = fs.nextID, 0, 0, fs.now()
	fs.rules = append(fs.rules, &r)
	return r, nil
}

// AddAction checks an action fault and appends it; it returns the fault
// with its ID.
func (fs *Set) AddAction(a ActionFault) (ActionFault, error) {
	if err := a.validate(fs.codes, fs.commands); err != nil {
		return ActionFault{}, err
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.nextID++
	a.ID, a.Hits, a.Skipped, a.Added = fs.nextID, 0, 0, fs.now()
	fs.actions = append(fs.actions, &a)
	return a, nil
}

// Remove deletes the rule or action fault with the ID and reports whether
// there was one.
func (fs *Set) Remove(id int) bool {
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

// Clear removes every rule and action fault; IDs go on.
func (fs *Set) Clear() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.rules, fs.actions = nil, nil
}

// List returns copies of the rules and action faults.
func (fs *Set) List() ([]Rule, []ActionFault) {
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

// match returns the first active rule in scope (nil: every rule) for a
// request and counts the hit; path is the request's path without the /v1
// prefix, ua its User-Agent.
func (fs *Set) match(method, path, ua string, scope func(string) bool) (Rule, bool) {
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
		if r.AfterCommit && !changes(method) {
			continue // a read commits nothing: the rule waits for a change
		}
		if scope != nil && !scope(r.Path) {
			continue
		}
		if !pathMatches(r.Path, path) || (r.ResourceID != 0 && !pathNamesID(path, r.ResourceID)) || !strings.Contains(ua, r.UserAgent) {
			continue
		}
		if r.Probability > 0 && fs.rng.Float64() >= r.Probability {
			continue
		}
		if r.Skipped < r.Skip {
			r.Skipped++
			continue
		}
		r.Hits++
		return *r, true
	}
	return Rule{}, false
}

// changes reports whether a request of method can change something.
func changes(method string) bool {
	return method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions
}

// unhit gives back a hit that did not apply (an after-commit rule whose
// request was refused anyway).
func (fs *Set) unhit(id int) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, r := range fs.rules {
		if r.ID == id && r.Hits > 0 {
			r.Hits--
		}
	}
}

// ForAction returns what happens to a new action of a command: an error
// code and message to end in, and extra running time; it counts the hit.
func (fs *Set) ForAction(command string) (code, message string, delay time.Duration) {
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
		if a.Skipped < a.Skip {
			a.Skipped++
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
