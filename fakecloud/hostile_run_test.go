package fakecloud

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// hostile sends generated bad requests to one fakecloud and checks every
// answer: given within answerDeadline, never 5xx, the status a case must
// get, an error envelope, a response valid against the OpenAPI
// description, no acceptance of what is invalid whatever the world holds
// or breaks the description's request schema, and no change by a refusal
// (the whole export and the faults compared, and the rate limit for an
// admin call). An accepted request must keep checkWorld and is undone, so
// every case starts from the same world.
type hostile struct {
	t                       testing.TB
	fc                      *Server
	adminToken              string
	before                  string            // the snapshot every refusal must leave
	world                   []byte            // the first world's export, which undo restores
	seed                    *World            // hostileSeed, the reset target
	refs                    map[string]string // worldRefs of the first world
	values                  map[string]string // valid path values by route prefix
	covered                 map[string]bool   // operations that got requests
	validated               map[string]bool   // operation, status and code triples validated
	sent, refused, accepted int
	checked                 int // answers validated against the description
}

func newHostile(t testing.TB, adminToken string) *hostile {
	h := &hostile{t: t, adminToken: adminToken, values: map[string]string{}, covered: map[string]bool{}, validated: map[string]bool{}}
	h.fc = hostileWorld(t, adminToken)
	w := hostileSeedWorld(t)
	h.seed = &w
	h.before = h.snapshot()
	h.world = []byte(export(t, h.fc))
	h.refs = worldRefs(t, h.fc)
	return h
}

// snapshot is the world, the faults and the rate limit but for the
// remaining budget, which API requests spend (admin calls must not:
// send compares it apart).
func (h *hostile) snapshot() string {
	data, err := h.fc.Export()
	if err != nil {
		h.t.Fatalf("export: %v", err)
	}
	rules, actionFaults := h.fc.Faults()
	limit, _, refill, on := h.fc.RateLimit()
	extra, _ := json.Marshal([]any{rules, actionFaults, limit, refill, on})
	return string(append(append(data, '\n'), extra...))
}

// remaining is the rate limit's remaining budget.
func (h *hostile) remaining() int {
	_, remaining, _, _ := h.fc.RateLimit()
	return remaining
}

// send makes one request and checks its answer.
func (h *hostile) send(c hostileCase) *httptest.ResponseRecorder {
	h.t.Helper()
	h.sent++
	remote := c.remote
	if remote == "" {
		remote = loopbackClient
	}
	admin := strings.HasPrefix(c.path, "/_fakecloud/")
	budget := h.remaining()
	rec := answerFrom(h.t, h.fc, remote, c.method, c.path, bytes.NewReader(c.body), c.header...)
	what := fmt.Sprintf("%s %s (%s)", c.method, short(c.path), c.why)
	if rec.Code >= 500 {
		h.t.Fatalf("%s: %d %s", what, rec.Code, rec.Body)
	}
	if c.want != 0 && rec.Code != c.want {
		h.t.Errorf("%s: answered %d, want %d: %.300s", what, rec.Code, c.want, rec.Body)
	}
	if !admin {
		h.validate(c, rec)
	}
	if rec.Code < 400 {
		h.accepted++
		switch {
		case c.invalid:
			h.t.Errorf("%s was accepted (%d) but must be refused; body %.200q", what, rec.Code, c.body)
		case !admin:
			if problems := requestProblems(h.t, c.method, c.path, c.body); len(problems) > 0 {
				h.t.Errorf("%s was accepted (%d), but the OpenAPI description refuses it: %s; body %.200q", what, rec.Code, strings.Join(problems, " | "), c.body)
			}
		}
		if c.method != http.MethodGet {
			h.undo(what, admin)
		}
		return rec
	}
	h.refused++
	var env wire.Envelope
	if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env.Error.Code == "" || env.Error.Message == "" ||
		rec.Header().Get("Content-Type") != "application/json" {
		h.t.Errorf("%s: %d without an error envelope (Content-Type %q): %.300s", what, rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}
	if admin && h.remaining() != budget {
		h.t.Errorf("%s was refused (%d %s) but changed the remaining budget from %d to %d", what, rec.Code, env.Error.Code, budget, h.remaining())
	}
	if after := h.snapshot(); after != h.before {
		h.t.Errorf("%s was refused (%d %s) but changed the world (-before +after):\n%s", what, rec.Code, env.Error.Code, cmp.Diff(h.before, after))
		h.undo(what, admin)
	}
	return rec
}

// validate checks an API answer against the OpenAPI description: every
// change's answer (it shows what the request set), and one other answer
// per operation, status and code (a listing's or an envelope's shape
// depends on nothing else, and the validator is much of the time).
func (h *hostile) validate(c hostileCase, rec *httptest.ResponseRecorder) {
	req := httptest.NewRequest(c.method, c.path, nil)
	key := fmt.Sprint(c.method, " ", h.fc.template(req), " ", rec.Code, " ", errorCode(rec))
	if (rec.Code >= 300 || c.method == http.MethodGet) && h.validated[key] {
		return
	}
	h.validated[key] = true
	h.checked++
	if resp := rec.Result(); !knownDeviation(req, resp) {
		checkResponse(h.t, req, resp, rec.Body.Bytes())
	}
}

// undo goes back to the first world after a change, checking first that
// the change kept checkWorld. After an admin call a new fakecloud (no
// faults, a full budget, the same reset target) imports it;
// API requests change only the world, so the same fakecloud does (and
// the next refusal's check would see an import that restored less).
func (h *hostile) undo(what string, admin bool) {
	h.t.Helper()
	data, err := h.fc.Export()
	var st world.Snapshot
	if err != nil || json.Unmarshal(data, &st) != nil {
		h.t.Fatalf("%s was accepted; export: %v", what, err)
	}
	if errs := checkWorld(&st); len(errs) > 0 {
		h.t.Errorf("%s was accepted and broke the world's invariants: %v", what, errors.Join(errs...))
	}
	if admin {
		h.fc = New(hostileOptions(h.adminToken))
		if err := h.fc.Seed(*h.seed); err != nil {
			h.t.Fatal(err)
		}
	}
	if err := h.fc.Import(h.world); err != nil {
		h.t.Fatalf("import the first world: %v", err)
	}
	if now := h.snapshot(); admin && now != h.before {
		h.t.Fatalf("the restored world differs from the first (-first +restored):\n%s", cmp.Diff(h.before, now))
	}
}

// add counts another run's requests and coverage into h.
func (h *hostile) add(o *hostile) {
	h.sent, h.refused, h.accepted, h.checked = h.sent+o.sent, h.refused+o.refused, h.accepted+o.accepted, h.checked+o.checked
	maps.Copy(h.covered, o.covered)
	maps.Copy(h.validated, o.validated)
}
