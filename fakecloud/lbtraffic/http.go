package lbtraffic

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"time"
)

// upstream is the target a request goes to, carried in its context.
type upstream struct {
	addr          netip.AddrPort
	proxy         bool
	client, local net.Addr
}

type upstreamKey struct{}

// httpHandler serves an http, https or redirect listener.
func (p *Plane) httpHandler(l *listener) http.Handler {
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			up := pr.In.Context().Value(upstreamKey{}).(upstream)
			pr.SetURL(&url.URL{Scheme: "http", Host: up.addr.String()})
			pr.Out.Host = pr.In.Host
			pr.SetXForwarded()
		},
		Transport: &http.Transport{
			// One connection per request: a PROXY header describes one client.
			DisableKeepAlives: true,
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				up := ctx.Value(upstreamKey{}).(upstream)
				return p.dialTarget(up.addr.Addr(), int(up.addr.Port()), up.proxy, up.client, up.local)
			},
			ResponseHeaderTimeout: time.Minute,
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			p.opts.Logger.Debug("target failed", "err", err)
			http.Error(w, "502 Bad Gateway: the target did not answer", http.StatusBadGateway)
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rt := l.route.Load()
		p.statsOf(rt.lb).reqs.Add(1)
		if rt.redirect {
			host, _, err := net.SplitHostPort(r.Host)
			if err != nil {
				host = r.Host
			}
			http.Redirect(w, r, "https://"+host+r.URL.RequestURI(), http.StatusMovedPermanently)
			return
		}
		sticky := ""
		name := rt.svc.CookieName
		if name == "" {
			name = "HCLBSTICKY"
		}
		if c, err := r.Cookie(name); err == nil && rt.svc.StickySessions {
			sticky = c.Value
		}
		t, ok := l.pick(p, rt, sticky)
		if !ok {
			http.Error(w, "503 Service Unavailable: no healthy target", http.StatusServiceUnavailable)
			return
		}
		if rt.svc.StickySessions && sticky != t.Key {
			life := rt.svc.CookieLifetime
			if life <= 0 {
				life = 300 * time.Second
			}
			http.SetCookie(w, &http.Cookie{Name: name, Value: t.Key, Path: "/", MaxAge: int(life.Seconds()), HttpOnly: true})
		}
		l.busy(t.Key, 1)
		defer l.busy(t.Key, -1)
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		client, _ := net.ResolveTCPAddr("tcp", r.RemoteAddr)
		up := upstream{addr: netip.AddrPortFrom(t.Addr, uint16(rt.svc.DestinationPort)), proxy: rt.svc.ProxyProtocol, client: client, local: local}
		rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), upstreamKey{}, up)))
	})
}
