package dnsserve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/miekg/dns"
)

const (
	defaultTimeout = 2 * time.Second
	// udpReadSize is the largest UDP query read; queries are small, but an
	// EDNS0 query may carry options.
	udpReadSize = dns.DefaultMsgSize
	// listenTries bounds the attempts to find a port free for TCP and UDP.
	listenTries = 10
)

// Option configures a Server.
type Option func(*config)

type config struct {
	log     *slog.Logger
	timeout time.Duration
}

// WithLogger logs each answer at debug level and failures to write one.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.log = l }
}

// WithTimeout bounds every read and write on a connection, and Close's wait
// for answers in flight (default 2s; zero or less keeps the default). A TCP
// connection idles at most four times as long between queries.
func WithTimeout(d time.Duration) Option {
	return func(c *config) { c.timeout = d }
}

// Server answers DNS queries from a Source over UDP and TCP.
type Server struct {
	zones    *zones
	log      *slog.Logger
	timeout  time.Duration
	addr     string
	tcp, udp *dns.Server
	done     chan error // each serve loop's result

	mu     sync.Mutex
	counts map[int]uint64

	closeOnce sync.Once
	closeErr  error
}

// Listen serves src on addr over UDP and TCP, on the same port. With port
// 0, both take one free port: TCP binds first, then UDP on its port, retried
// a bounded number of times. It returns once both are listening.
func Listen(addr string, src Source, opts ...Option) (*Server, error) {
	cfg := config{log: slog.New(slog.DiscardHandler), timeout: defaultTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.log == nil {
		cfg.log = slog.New(slog.DiscardHandler)
	}
	if cfg.timeout <= 0 {
		cfg.timeout = defaultTimeout
	}
	tl, ul, err := listenBoth(addr)
	if err != nil {
		return nil, err
	}
	s := &Server{
		zones:   newZones(src),
		log:     cfg.log,
		timeout: cfg.timeout,
		addr:    tl.Addr().String(),
		done:    make(chan error, 2),
		counts:  make(map[int]uint64),
	}
	idle := func() time.Duration { return 4 * cfg.timeout }
	s.tcp = &dns.Server{
		Listener:       deadlineListener{tl, cfg.timeout},
		Handler:        dns.HandlerFunc(s.serve),
		ReadTimeout:    cfg.timeout,
		WriteTimeout:   cfg.timeout,
		IdleTimeout:    idle,
		MsgAcceptFunc:  acceptQueries,
		MsgInvalidFunc: s.invalid,
	}
	s.udp = &dns.Server{
		PacketConn:     ul,
		Handler:        dns.HandlerFunc(s.serve),
		UDPSize:        udpReadSize,
		ReadTimeout:    cfg.timeout,
		WriteTimeout:   cfg.timeout,
		MsgAcceptFunc:  acceptQueries,
		MsgInvalidFunc: s.invalid,
		// miekg/dns sets no write deadline itself; UDP writes share one socket.
		DecorateWriter: func(w dns.Writer) dns.Writer {
			return deadlineWriter{w, ul.SetWriteDeadline, cfg.timeout}
		},
	}
	started := make(chan struct{}, 2)
	for _, srv := range []*dns.Server{s.tcp, s.udp} {
		srv.NotifyStartedFunc = func() { started <- struct{}{} }
		go func() { s.done <- srv.ActivateAndServe() }()
	}
	for range 2 {
		select {
		case <-started:
		case err := <-s.done:
			tl.Close()
			ul.Close()
			return nil, fmt.Errorf("serve dns on %s: %w", s.addr, err)
		}
	}
	return s, nil
}

// listenBoth binds TCP, then UDP on the same address and port.
func listenBoth(addr string) (net.Listener, *net.UDPConn, error) {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, nil, fmt.Errorf("dns listen address %q: %w", addr, err)
	}
	tries := 1
	if port == "0" {
		tries = listenTries
	}
	var lastErr error
	for range tries {
		tl, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, nil, fmt.Errorf("listen tcp %s: %w", addr, err)
		}
		ta := tl.Addr().(*net.TCPAddr)
		ul, err := net.ListenUDP("udp", &net.UDPAddr{IP: ta.IP, Port: ta.Port, Zone: ta.Zone})
		if err == nil {
			return tl, ul, nil
		}
		tl.Close()
		lastErr = fmt.Errorf("listen udp %s: %w", ta, err)
	}
	return nil, nil, lastErr
}

// Addr is the host:port both transports serve on.
func (s *Server) Addr() string { return s.addr }

// Close stops both transports; it waits for answers in flight for at most
// the timeout. The port is free once it returns.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
		defer cancel()
		errs := []error{s.tcp.ShutdownContext(ctx), s.udp.ShutdownContext(ctx)}
		for range 2 {
			select {
			case err := <-s.done:
				errs = append(errs, err)
			case <-ctx.Done():
				errs = append(errs, fmt.Errorf("dns serve loops: %w", ctx.Err()))
			}
		}
		if err := errors.Join(errs...); err != nil {
			s.closeErr = fmt.Errorf("close dns server %s: %w", s.addr, err)
		}
	})
	return s.closeErr
}

// Stats returns the number of messages answered, by rcode mnemonic
// (NOERROR, NXDOMAIN, REFUSED, ...). A zone transfer counts once.
func (s *Server) Stats() map[string]uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]uint64, len(s.counts))
	for rc, n := range s.counts {
		name, ok := dns.RcodeToString[rc]
		if !ok {
			name = "RCODE" + strconv.Itoa(rc)
		}
		out[name] = n
	}
	return out
}

func (s *Server) count(rcode int) {
	s.mu.Lock()
	s.counts[rcode]++
	s.mu.Unlock()
}

// serve answers one query; it is the handler of both transports.
func (s *Server) serve(w dns.ResponseWriter, req *dns.Msg) {
	_, tcp := w.LocalAddr().(*net.TCPAddr)
	msgs := respond(req, s.zones, tcp)
	s.count(msgs[0].Rcode)
	for _, m := range msgs {
		if err := w.WriteMsg(m); err != nil {
			s.log.Warn("dns answer not written", "remote", w.RemoteAddr().String(), "err", err)
			return
		}
	}
	if s.log.Enabled(context.Background(), slog.LevelDebug) {
		s.log.Debug("dns answer", "remote", w.RemoteAddr().String(), "tcp", tcp,
			"question", questionString(req), "rcode", dns.RcodeToString[msgs[0].Rcode], "messages", len(msgs))
	}
}

// invalid counts a message that failed to parse: miekg/dns answers it with
// FORMERR when it has a whole header, and drops it otherwise.
func (s *Server) invalid(m []byte, err error) {
	if len(m) >= 12 {
		s.count(dns.RcodeFormatError)
	}
	s.log.Debug("dns message malformed", "len", len(m), "err", err)
}

// acceptQueries drops responses and lets every request through to the
// handler, which answers bad opcodes and question counts itself.
func acceptQueries(dh dns.Header) dns.MsgAcceptAction {
	const qr = 1 << 15
	if dh.Bits&qr != 0 {
		return dns.MsgIgnore
	}
	return dns.MsgAccept
}

func questionString(m *dns.Msg) string {
	if len(m.Question) == 0 {
		return ""
	}
	q := m.Question[0]
	return q.Name + " " + dns.TypeToString[q.Qtype]
}

// deadlineListener gives each TCP connection a deadline on every write,
// which miekg/dns does not set.
type deadlineListener struct {
	net.Listener
	timeout time.Duration
}

func (l deadlineListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return deadlineConn{c, l.timeout}, nil
}

type deadlineConn struct {
	net.Conn
	timeout time.Duration
}

func (c deadlineConn) Write(b []byte) (int, error) {
	if err := c.SetWriteDeadline(time.Now().Add(c.timeout)); err != nil {
		return 0, err
	}
	return c.Conn.Write(b)
}

// deadlineWriter sets a write deadline before each UDP answer.
type deadlineWriter struct {
	dns.Writer
	set     func(time.Time) error
	timeout time.Duration
}

func (w deadlineWriter) Write(b []byte) (int, error) {
	if err := w.set(time.Now().Add(w.timeout)); err != nil {
		return 0, err
	}
	return w.Writer.Write(b)
}
