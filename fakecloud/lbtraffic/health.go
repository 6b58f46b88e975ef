package lbtraffic

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/trafficspec"
)

// checkKey names a running check: a target of a service, where it is
// probed and how. A change of address or settings starts a new check.
type checkKey struct {
	healthKey
	addr  netip.Addr
	proxy bool
	how   string
}

type checker struct{ stop chan struct{} }

func (p *Plane) syncChecks(lbs []LoadBalancer) {
	want := map[checkKey]HealthCheck{}
	for _, lb := range lbs {
		for _, svc := range lb.Services {
			for _, t := range lb.Targets {
				k := checkKey{healthKey{lb.ID, svc.ListenPort, t.Key}, t.Addr, svc.ProxyProtocol, fmt.Sprintf("%+v", svc.HealthCheck)}
				want[k] = svc.HealthCheck
			}
		}
	}
	keep := map[healthKey]bool{}
	for k := range want {
		keep[k.healthKey] = true
	}
	for k, c := range p.checks {
		if _, ok := want[k]; !ok {
			close(c.stop)
			delete(p.checks, k)
		}
	}
	for k, hc := range want {
		if _, ok := p.checks[k]; !ok {
			c := &checker{stop: make(chan struct{})}
			p.checks[k] = c
			go p.runCheck(c, k, hc)
		}
	}
	p.hmu.Lock()
	defer p.hmu.Unlock()
	for k := range p.health {
		if !keep[k] {
			delete(p.health, k)
		}
	}
}

// runCheck probes at once, then every interval. As the API describes
// retries: that many failures in a row make a target unhealthy, and an
// unhealthy target needs that many successes in a row to be healthy
// again. Its first success makes an unchecked target healthy.
func (p *Plane) runCheck(c *checker, k checkKey, hc HealthCheck) {
	interval := max(hc.Interval, 10*time.Millisecond)
	retries := max(hc.Retries, 1)
	timer := time.NewTimer(0)
	defer timer.Stop()
	var run streak
	for {
		select {
		case <-c.stop:
			return
		case <-timer.C:
		}
		err := p.probe(hc, k.addr, k.proxy)
		select {
		case <-c.stop:
			return
		default:
		}
		if err != nil {
			p.opts.Logger.Debug("health check failed", "load_balancer", k.lb, "target", k.target, "err", err)
		}
		st, _ := p.Health(k.lb, k.port, k.target)
		if next := run.judge(err == nil, st, retries); next != "" {
			h := trafficspec.Health{Status: next}
			if next == Unhealthy {
				h.Detail, h.HTTPStatusCode = failureOf(err)
			}
			p.setHealth(k.healthKey, h)
		}
		timer.Reset(interval)
	}
}

// streak counts a target's last results of the same kind.
type streak struct{ fails, oks int }

// judge records a result and returns the status it leads to from st, or
// "" to keep st.
func (s *streak) judge(ok bool, st string, retries int) string {
	if ok {
		s.fails, s.oks = 0, s.oks+1
		if st != Unhealthy || s.oks >= retries {
			return Healthy
		}
		return ""
	}
	s.fails, s.oks = s.fails+1, 0
	if s.fails >= retries {
		return Unhealthy
	}
	return ""
}

// probe runs one check: a TCP connect, or an HTTP(S) GET whose status and
// body must match.
func (p *Plane) probe(hc HealthCheck, addr netip.Addr, proxy bool) error {
	timeout := hc.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	target := netip.AddrPortFrom(addr, uint16(hc.Port))
	conn, err := p.opts.Dial(ctx, "tcp", target.String())
	if err != nil {
		if timedOut(ctx, err) {
			return checkFailure{"layer4_timeout", 0, err}
		}
		return checkFailure{"layer4_no_connection", 0, err}
	}
	defer conn.Close()
	if hc.Protocol == "tcp" || hc.Protocol == "" {
		return nil
	}
	deadline, _ := ctx.Deadline()
	_ = conn.SetDeadline(deadline)
	if proxy {
		if _, err := io.WriteString(conn, proxyHeader(conn.LocalAddr(), conn.RemoteAddr())); err != nil {
			return err
		}
	}
	host := hc.Domain
	if host == "" {
		host = target.String()
	}
	if hc.Protocol == "https" {
		tc := tls.Client(conn, &tls.Config{InsecureSkipVerify: true, ServerName: hc.Domain}) //nolint:gosec // a health check does not verify, as Hetzner's do not
		conn = tc
	}
	path := hc.Path
	if path == "" {
		path = "/"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+target.String()+path, nil)
	if err != nil {
		return err
	}
	req.Host = host
	req.Close = true
	if err := req.Write(conn); err != nil {
		return layer7(ctx, err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		return layer7(ctx, err)
	}
	defer resp.Body.Close()
	if !statusMatches(resp.StatusCode, hc.StatusCodes) {
		return checkFailure{"unexpected_http_status", resp.StatusCode, fmt.Errorf("status %d is not one of %v", resp.StatusCode, hc.StatusCodes)}
	}
	if hc.Response != "" {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if !strings.Contains(string(body), hc.Response) {
			return checkFailure{"unexpected_http_content", resp.StatusCode, fmt.Errorf("the body does not contain %q", hc.Response)}
		}
	}
	return nil
}

// statusMatches matches a status against patterns such as "2??" or "301".
func statusMatches(code int, patterns []string) bool {
	if len(patterns) == 0 {
		patterns = []string{"2??", "3??"}
	}
	s := fmt.Sprint(code)
	for _, pat := range patterns {
		if len(pat) != len(s) {
			continue
		}
		ok := true
		for i := range pat {
			if pat[i] != '?' && pat[i] != s[i] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// checkFailure is why a check failed, as the API details an unhealthy
// target.
type checkFailure struct {
	detail string
	status int // the HTTP status, for the HTTP details
	err    error
}

func (f checkFailure) Error() string { return f.detail + ": " + f.err.Error() }

// failureOf is the detail and HTTP status of a failed check.
func failureOf(err error) (string, int) {
	var f checkFailure
	if errors.As(err, &f) {
		return f.detail, f.status
	}
	return "unspecified", 0
}

// layer7 is a failure after the connection was made.
func layer7(ctx context.Context, err error) error {
	if timedOut(ctx, err) {
		return checkFailure{"layer7_timeout", 0, err}
	}
	return checkFailure{"unspecified", 0, err}
}

func timedOut(ctx context.Context, err error) bool {
	var ne net.Error
	return ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
