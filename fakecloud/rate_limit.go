package fakecloud

import (
	"errors"
	"math"
	"net/http"
	"strconv"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/ratelimit"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
)

// RateLimit reports the limit, the remaining budget and the refill rate.
func (s *Server) RateLimit() (limit, remaining int, refill float64, on bool) {
	if s.limiter == nil {
		return 0, 0, 0, false
	}
	st := s.limiter.Peek()
	return st.Limit, st.Remaining, st.Refill, true
}

// SetRateLimit sets the remaining budget and the refill rate (requests per
// second); a negative value keeps the current one.
func (s *Server) SetRateLimit(remaining int, refill float64) error {
	if s.limiter == nil {
		return errors.New("rate limiting is off")
	}
	if refill >= 0 || math.IsNaN(refill) {
		if err := ratelimit.CheckRefill(refill); err != nil {
			return err
		}
	}
	s.limiter.Set(remaining, refill)
	return nil
}

// rateLimit spends one request from the bucket and reports the budget in
// the RateLimit-* headers; an empty bucket answers 429. It runs after
// authenticate: the bucket is the project's, and a request without a
// valid token belongs to no project, so it answers 401 and spends nothing.
func (s *Server) rateLimit(next http.Handler) http.Handler {
	if s.limiter == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := s.limiter.Take()
		h := w.Header()
		h.Set("RateLimit-Limit", strconv.Itoa(st.Limit))
		h.Set("RateLimit-Remaining", strconv.Itoa(st.Remaining))
		h.Set("RateLimit-Reset", strconv.FormatInt(st.Reset, 10))
		if !st.Allowed {
			wire.WriteError(w, apierr.Errorf(apierr.CodeRateLimitExceeded, "limit of %d requests per hour reached", st.Limit))
			return
		}
		next.ServeHTTP(w, r)
	})
}
