package fakecloud

import (
	"net/http"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/faults"
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
		Applied: func(w http.ResponseWriter, id int) {
			if rec, ok := w.(*statusRecorder); ok {
				rec.fault = id
			}
		},
		Answer: writeFault,
	})
}

// codeStatus is the status of an error code and whether the API knows it,
// for checking rules.
func codeStatus(code string) (int, bool) { return StatusForCode(code), knownCodes[code] }

// writeFault answers with a rule's error, as the envelope or as plain text.
func writeFault(w http.ResponseWriter, rule Rule) {
	code := rule.Code
	if code == "" {
		code = codeOfStatus[rule.Status]
		if code == "" {
			code = codeServerError
		}
	}
	msg := rule.Message
	if msg == "" {
		msg = "injected by fakecloud fault rule " + itoa(rule.ID)
		if rule.Name != "" {
			msg += " (" + rule.Name + ")"
		}
	}
	if rule.PlainBody {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(rule.Status)
		_, _ = w.Write([]byte(msg + "\n"))
		return
	}
	ae := &apiError{Code: code, Message: msg}
	writeErrorStatus(w, ae, rule.Status)
}
