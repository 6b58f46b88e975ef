package fakecloud

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/ratelimit"
)

// LoadScenarioFile reads and loads a scenario file.
func (s *Server) LoadScenarioFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	sc, err := ParseScenario(data)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := s.LoadScenario(sc); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// scheduled is an event or rate-limit change waiting for its time.
type scheduled struct {
	at        time.Time
	event     *Event
	rateLimit *RateLimitSet
}

// LoadScenario checks every step, then starts the scenario: fault rules
// and action faults are added with their start delayed to the step's time;
// events and rate-limit changes happen when their time has come, checked at
// every request. A malformed scenario is refused whole, naming the step and
// field.
func (s *Server) LoadScenario(sc Scenario) error {
	var errs []error
	if sc.Realism != nil {
		if sc.Realism.Mode == "" {
			errs = append(errs, fmt.Errorf("realism.mode: is required: %s or %s", RealismOptimistic, RealismPessimistic))
		}
		r, err := sc.Realism.Check()
		if err != nil {
			errs = append(errs, fmt.Errorf("realism.%w", err))
		}
		sc.Realism = &r
	}
	if len(sc.Steps) == 0 && sc.Realism == nil {
		errs = append(errs, errors.New("steps: a scenario needs at least one step"))
	}
	for i, st := range sc.Steps {
		parts := 0
		for _, set := range []bool{st.Fault != nil, st.ActionFault != nil, st.Event != nil, st.RateLimit != nil} {
			if set {
				parts++
			}
		}
		if parts != 1 {
			errs = append(errs, fmt.Errorf("steps[%d]: needs exactly one of fault, action_fault, event, rate_limit", i))
			continue
		}
		var err error
		switch {
		case st.Fault != nil:
			err = s.faults.Check(*st.Fault)
		case st.ActionFault != nil:
			err = s.faults.CheckAction(*st.ActionFault)
		case st.Event != nil:
			err = s.world.CheckEvent(*st.Event)
		case st.RateLimit != nil:
			if s.limiter == nil {
				err = errors.New("rate_limit: rate limiting is off")
			} else if st.RateLimit.Remaining != nil && *st.RateLimit.Remaining < 0 {
				err = errors.New("rate_limit: remaining must not be negative")
			} else if st.RateLimit.Refill != nil {
				if rerr := ratelimit.CheckRefill(*st.RateLimit.Refill); rerr != nil {
					err = fmt.Errorf("rate_limit.%w", rerr)
				}
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("steps[%d].%w", i, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	now := s.opts.Now()
	if sc.Realism != nil {
		_ = s.world.SetRealism(*sc.Realism) // checked above
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range sc.Steps {
		switch {
		case st.Fault != nil:
			r := *st.Fault
			r.Start += st.At
			_, _ = s.faults.Add(r)
		case st.ActionFault != nil:
			a := *st.ActionFault
			a.Start += st.At
			_, _ = s.faults.AddAction(a)
		default:
			s.schedule = append(s.schedule, scheduled{at: now.Add(time.Duration(st.At)), event: st.Event, rateLimit: st.RateLimit})
		}
	}
	slices.SortStableFunc(s.schedule, func(a, b scheduled) int { return a.at.Compare(b.at) })
	return nil
}

// runDue applies the scheduled steps whose time has come.
func (s *Server) runDue() {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Now()
	for len(s.schedule) > 0 && !now.Before(s.schedule[0].at) {
		st := s.schedule[0]
		s.schedule = s.schedule[1:]
		if st.event != nil {
			if err := s.world.Apply(*st.event); err != nil {
				s.opts.Logger.Warn("scenario event failed", "type", st.event.Type, "error", err)
			}
		}
		if st.rateLimit != nil && s.limiter != nil {
			remaining, refill := -1, -1.0
			if st.rateLimit.Remaining != nil {
				remaining = *st.rateLimit.Remaining
			}
			if st.rateLimit.Refill != nil {
				refill = *st.rateLimit.Refill
			}
			s.limiter.Set(remaining, refill)
		}
	}
}
