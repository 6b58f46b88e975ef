package fakecloud

import (
	"net/http"
	"strconv"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/faults"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/robot"
)

// Rule is a request fault: which requests it matches and what they get.
// The first active rule that matches a request applies to it.
type Rule = faults.Rule

// ActionFault makes actions of a command fail or run longer.
type ActionFault = faults.ActionFault

// AddFault adds a request fault rule after the existing ones and returns
// it with its ID. A malformed rule is refused, naming each bad field.
func (s *Server) AddFault(r Rule) (Rule, error) { return s.faults.Add(r) }

// AddActionFault makes the next actions of a command fail or run longer.
func (s *Server) AddActionFault(a ActionFault) (ActionFault, error) { return s.faults.AddAction(a) }

// Faults lists the request rules and action faults with their hit counts.
func (s *Server) Faults() ([]Rule, []ActionFault) { return s.faults.List() }

// RemoveFault removes a rule or action fault; it reports whether one had the ID.
func (s *Server) RemoveFault(id int) bool { return s.faults.Remove(id) }

// ClearFaults removes every rule and action fault.
func (s *Server) ClearFaults() { s.faults.Clear() }

// injectFaults applies the first matching fault rule to an API request.
func (s *Server) injectFaults(next http.Handler) http.Handler {
	return s.faults.Inject(next, faults.Hooks{
		Path:    apiPath,
		Closing: s.closing,
		Applied: noteFault,
		Answer: func(w http.ResponseWriter, _ *http.Request, rule Rule) {
			if rule.Status == http.StatusTooManyRequests {
				s.exhaustedHeaders(w.Header())
			}
			if writePlainFault(w, rule) {
				return
			}
			code := rule.Code
			if code == "" {
				var ok bool
				if code, ok = apierr.CodeOfStatus(rule.Status); !ok {
					code = apierr.CodeServerError
				}
			}
			wire.WriteErrorStatus(w, &apierr.Error{Code: code, Message: faultMessage(rule)}, rule.Status)
		},
		Scope: func(path string) bool { return !robotPath(path) },
	})
}

// injectRobotFaults applies the first matching /robot rule to a Robot
// webservice request, answering in the webservice's error envelope.
func (s *Server) injectRobotFaults(next http.Handler) http.Handler {
	return s.faults.Inject(next, faults.Hooks{
		Path:    apiPath,
		Closing: s.closing,
		Applied: noteFault,
		Answer: func(w http.ResponseWriter, r *http.Request, rule Rule) {
			if !writePlainFault(w, rule) {
				s.robot.WriteError(w, r, rule.Status, rule.Code, faultMessage(rule))
			}
		},
		Scope: robotPath,
	})
}

// exhaustedHeaders makes a 429 fault's RateLimit headers say what the
// API's own 429 says: nothing remaining, full again after a refill of the
// whole limit at its hourly rate (the limit's, or 3600 with none set).
func (s *Server) exhaustedHeaders(h http.Header) {
	limit, err := strconv.Atoi(h.Get("RateLimit-Limit"))
	if err != nil || limit <= 0 {
		limit = 3600
	}
	h.Set("RateLimit-Limit", strconv.Itoa(limit))
	h.Set("RateLimit-Remaining", "0")
	h.Set("RateLimit-Reset", strconv.FormatInt(s.opts.Now().Add(time.Hour).Unix(), 10))
}

// noteFault tells the journal which rule applied to a request.
func noteFault(w http.ResponseWriter, id int) {
	if rec, ok := w.(*statusRecorder); ok {
		rec.fault = id
	}
}

// codeStatus is the status of an error code and whether the API that
// serves path knows it, for checking rules.
func codeStatus(path, code string) (int, bool) {
	if robotPath(path) {
		return robot.CodeStatus(code)
	}
	return StatusForCode(code), apierr.Known(code)
}

// faultMessage is a rule's message, or one naming the rule.
func faultMessage(rule Rule) string {
	if rule.Message != "" {
		return rule.Message
	}
	msg := "injected by fakecloud fault rule " + strconv.Itoa(rule.ID)
	if rule.Name != "" {
		msg += " (" + rule.Name + ")"
	}
	return msg
}

// writePlainFault answers text/plain, as a proxy would, for a rule that
// asks for it, and reports whether it did.
func writePlainFault(w http.ResponseWriter, rule Rule) bool {
	if !rule.PlainBody {
		return false
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(rule.Status)
	_, _ = w.Write([]byte(faultMessage(rule) + "\n"))
	return true
}
