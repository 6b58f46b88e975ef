package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/robot"
)

// config is what the flags and environment configure.
type config struct {
	listen         string
	dnsListen      string
	tokens         []string
	readOnly       []string
	projectArgs    []string            // NAME=TOKEN, as given
	projects       map[string][]string // project name → its tokens
	seed           string
	actionDuration time.Duration
	actionPolls    int
	rateLimit      int
	rateRefill     float64
	idSeed         uint64
	logLevel       slog.Level
	logFormat      string
	scenarios      []string
	stateFile      string
	stateInterval  time.Duration
	adminToken     string
	lbRange        netip.Prefix
	lbTargetArgs   []string  // FROM=TO, as given
	lbTargets      targetMap // where the data plane reaches a target address instead
	realism        fakecloud.Realism
	robotUser      string
	robotPassword  string
	robotRateLimit float64 // scale of the webservice's hourly limits; 0 turns them off
	robotInterval  time.Duration
}

// listFlag is a repeatable string flag.
type listFlag struct{ values *[]string }

func (l listFlag) String() string {
	if l.values == nil {
		return ""
	}
	return strings.Join(*l.values, ",")
}

func (l listFlag) Set(v string) error { *l.values = append(*l.values, v); return nil }

// flagTexts are the flags read as text, checked after parsing.
type flagTexts struct {
	durText, pollsText, rateText, refillText, idSeedText, levelText, intervalText, rangeText, realismText, retentionText, robotRateText, robotIntervalText *string
}

// newFlagSet defines fakecloud's flags into c, each falling back to its
// FAKECLOUD_* variable; docs/reference/fakecloud/flags.md lists them.
func newFlagSet(c *config, getenv func(string) string, out io.Writer) (*flag.FlagSet, *flagTexts) {
	t := &flagTexts{}
	fs := flag.NewFlagSet("fakecloud", flag.ContinueOnError)
	fs.SetOutput(out)
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	fs.StringVar(&c.listen, "listen", env("FAKECLOUD_LISTEN", "127.0.0.1:8080"), "address to serve on; the API is at http://ADDR/v1 (env FAKECLOUD_LISTEN)")
	fs.StringVar(&c.dnsListen, "dns-listen", env("FAKECLOUD_DNS_LISTEN", ""), "also answer DNS queries for the primary zones, authoritatively, over UDP and TCP on this address, e.g. 127.0.0.1:5353 (env FAKECLOUD_DNS_LISTEN; default off)")
	fs.Var(listFlag{&c.tokens}, "token", "Bearer token with read and write access; repeatable; giving one replaces the default token (env FAKECLOUD_TOKENS, comma-separated; default "+fakecloud.DefaultToken+")")
	fs.Var(listFlag{&c.projectArgs}, "project", "a further project and a token of it, NAME=TOKEN: the token sees only that project's world, rate limit, faults and journal; repeatable, also to give a project more tokens (env FAKECLOUD_PROJECTS, comma-separated)")
	fs.Var(listFlag{&c.readOnly}, "read-only-token", "Bearer token that may only GET: writes answer 403 forbidden and spend the bucket, as the API's do; repeatable; alone, it keeps the default token (env FAKECLOUD_READ_ONLY_TOKENS, comma-separated)")
	fs.StringVar(&c.seed, "seed", env("FAKECLOUD_SEED", ""), "seed world YAML file to start with (env FAKECLOUD_SEED)")
	fs.Var(listFlag{&c.scenarios}, "scenario", "scenario YAML file to run from the start; repeatable (env FAKECLOUD_SCENARIOS, comma-separated)")
	t.durText = fs.String("action-duration", env("FAKECLOUD_ACTION_DURATION", "300ms"), "how long every action stays running, e.g. 2s; 0s finishes actions within the request (env FAKECLOUD_ACTION_DURATION)")
	t.pollsText = fs.String("action-polls", env("FAKECLOUD_ACTION_POLLS", "0"), "an action finishes on the Nth time a client reads it, whatever the clock says; 0 is off (env FAKECLOUD_ACTION_POLLS)")
	t.rateText = fs.String("rate-limit", env("FAKECLOUD_RATE_LIMIT", "3600"), "size of the project's request bucket; 0 turns rate limiting off (env FAKECLOUD_RATE_LIMIT)")
	t.refillText = fs.String("rate-limit-refill", env("FAKECLOUD_RATE_LIMIT_REFILL", ""), "requests refilled per second (env FAKECLOUD_RATE_LIMIT_REFILL; default rate-limit/3600)")
	t.idSeedText = fs.String("id-seed", env("FAKECLOUD_ID_SEED", "0"), "seed for IDs, MAC addresses and passwords: same seed, same requests, same world (env FAKECLOUD_ID_SEED)")
	t.levelText = fs.String("log-level", env("FAKECLOUD_LOG_LEVEL", "info"), "debug, info, warn or error; one record per request at info (env FAKECLOUD_LOG_LEVEL)")
	fs.StringVar(&c.stateFile, "state-file", env("FAKECLOUD_STATE_FILE", ""), "keep the world in this file: reloaded on start (instead of --seed), rewritten atomically after changes (env FAKECLOUD_STATE_FILE)")
	t.intervalText = fs.String("state-interval", env("FAKECLOUD_STATE_INTERVAL", "100ms"), "how often a changed world is written to the state file: an acknowledged change is in it within this plus two writes, and GET /_fakecloud/state-file says which changes it holds (env FAKECLOUD_STATE_INTERVAL)")
	fs.StringVar(&c.adminToken, "admin-token", env("FAKECLOUD_ADMIN_TOKEN", ""), "token of the admin API /_fakecloud/, sent as Authorization: Bearer T; without one, the admin API answers loopback clients only (env FAKECLOUD_ADMIN_TOKEN)")
	t.rangeText = fs.String("lb-ipv4-range", env("FAKECLOUD_LB_IPV4_RANGE", ""), "make load balancers carry traffic: their IPv4 addresses come from this range, which must be local to the host (all of 127.0.0.0/8 is, on Linux), e.g. 127.0.100.0/24 (env FAKECLOUD_LB_IPV4_RANGE)")
	fs.Var(listFlag{&c.lbTargetArgs}, "lb-target-address", "with --lb-ipv4-range, reach target address FROM at TO instead, FROM=TO, e.g. 10.0.0.3=127.0.1.3: a server's private IP answered on a loopback address; repeatable (env FAKECLOUD_LB_TARGET_ADDRESSES, comma-separated)")
	t.realismText = fs.String("realism", env("FAKECLOUD_REALISM", fakecloud.RealismOptimistic), "optimistic, or pessimistic: what the API's documentation leaves open goes the unhelpful way (env FAKECLOUD_REALISM)")
	t.retentionText = fs.String("action-retention", env("FAKECLOUD_ACTION_RETENTION", ""), "with --realism pessimistic, how long finished actions stay listed (env FAKECLOUD_ACTION_RETENTION; default 30m)")
	fs.StringVar(&c.robotUser, "robot-user", env("FAKECLOUD_ROBOT_USER", fakecloud.DefaultRobotUser), "login of the Robot webservice under /robot (env FAKECLOUD_ROBOT_USER)")
	fs.StringVar(&c.robotPassword, "robot-password", env("FAKECLOUD_ROBOT_PASSWORD", fakecloud.DefaultRobotPassword), "password of the Robot webservice (env FAKECLOUD_ROBOT_PASSWORD)")
	t.robotRateText = fs.String("robot-rate-limit", env("FAKECLOUD_ROBOT_RATE_LIMIT", "1"), "multiplies the Robot webservice's hourly limits per endpoint (GET /server 200, GET /reset 500), rounded up, at least 1; 0 turns them off (env FAKECLOUD_ROBOT_RATE_LIMIT)")
	t.robotIntervalText = fs.String("robot-rate-limit-interval", env("FAKECLOUD_ROBOT_RATE_LIMIT_INTERVAL", "1h"), "the window the Robot webservice's limits count in (env FAKECLOUD_ROBOT_RATE_LIMIT_INTERVAL)")
	fs.StringVar(&c.logFormat, "log-format", env("FAKECLOUD_LOG_FORMAT", "text"), "text or json (env FAKECLOUD_LOG_FORMAT)")
	return fs, t
}

// parseConfig reads flags, falling back to FAKECLOUD_* environment variables.
func parseConfig(args []string, getenv func(string) string, out io.Writer) (config, error) {
	c := config{}
	fs, t := newFlagSet(&c, getenv, out)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var errs []error
	if len(c.tokens) == 0 {
		c.tokens = splitList(getenv("FAKECLOUD_TOKENS"))
	}
	if len(c.readOnly) == 0 {
		c.readOnly = splitList(getenv("FAKECLOUD_READ_ONLY_TOKENS"))
	}
	if len(c.scenarios) == 0 {
		c.scenarios = splitList(getenv("FAKECLOUD_SCENARIOS"))
	}
	if len(c.projectArgs) == 0 {
		c.projectArgs = splitList(getenv("FAKECLOUD_PROJECTS"))
	}
	for _, arg := range c.projectArgs {
		name, token, ok := strings.Cut(arg, "=")
		if !ok || name == "" || token == "" {
			errs = append(errs, fmt.Errorf("--project %q: want NAME=TOKEN", arg))
			continue
		}
		if c.projects == nil {
			c.projects = map[string][]string{}
		}
		c.projects[name] = append(c.projects[name], token)
	}
	var err error
	if c.actionDuration, err = time.ParseDuration(*t.durText); err != nil || c.actionDuration < 0 {
		errs = append(errs, fmt.Errorf("--action-duration %q: want a duration such as 300ms", *t.durText))
	}
	if c.actionPolls, err = strconv.Atoi(*t.pollsText); err != nil || c.actionPolls < 0 {
		errs = append(errs, fmt.Errorf("--action-polls %q: want 0 or more", *t.pollsText))
	}
	if c.rateLimit, err = strconv.Atoi(*t.rateText); err != nil || c.rateLimit < 0 {
		errs = append(errs, fmt.Errorf("--rate-limit %q: want 0 (off) or more", *t.rateText))
	}
	if *t.refillText != "" {
		if c.rateRefill, err = strconv.ParseFloat(*t.refillText, 64); err != nil || !(c.rateRefill > 0 && c.rateRefill <= fakecloud.MaxRateLimitRefill) {
			errs = append(errs, fmt.Errorf("--rate-limit-refill %q: want a number of requests per second above 0, up to %g", *t.refillText, fakecloud.MaxRateLimitRefill))
		}
	}
	if c.idSeed, err = strconv.ParseUint(*t.idSeedText, 10, 64); err != nil {
		errs = append(errs, fmt.Errorf("--id-seed %q: want a non-negative integer", *t.idSeedText))
	}
	if err := c.logLevel.UnmarshalText([]byte(*t.levelText)); err != nil {
		errs = append(errs, fmt.Errorf("--log-level %q: want debug, info, warn or error", *t.levelText))
	}
	if c.stateInterval, err = time.ParseDuration(*t.intervalText); err != nil || c.stateInterval <= 0 {
		errs = append(errs, fmt.Errorf("--state-interval %q: want a positive duration such as 100ms", *t.intervalText))
	}
	if *t.rangeText != "" {
		if c.lbRange, err = netip.ParsePrefix(*t.rangeText); err != nil || !c.lbRange.Addr().Is4() || c.lbRange.Bits() > 30 {
			errs = append(errs, fmt.Errorf("--lb-ipv4-range %q: want an IPv4 range of at least 4 addresses such as 127.0.100.0/24", *t.rangeText))
		}
	}
	if len(c.lbTargetArgs) == 0 {
		c.lbTargetArgs = splitList(getenv("FAKECLOUD_LB_TARGET_ADDRESSES"))
	}
	if c.lbTargets, err = parseTargetMap(c.lbTargetArgs); err != nil {
		errs = append(errs, err)
	} else if len(c.lbTargets) > 0 && *t.rangeText == "" {
		errs = append(errs, fmt.Errorf("--lb-target-address needs --lb-ipv4-range: without it no load balancer carries traffic"))
	}
	c.realism.Mode = *t.realismText
	if *t.retentionText != "" {
		d, err := time.ParseDuration(*t.retentionText)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("--action-retention %q: want a positive duration such as 30m", *t.retentionText))
		}
		c.realism.ActionRetention = fakecloud.Duration(d)
	}
	if c.realism, err = c.realism.Check(); err != nil {
		errs = append(errs, fmt.Errorf("--realism %q: want %s or %s", *t.realismText, fakecloud.RealismOptimistic, fakecloud.RealismPessimistic))
	}
	if c.robotUser == "" || c.robotPassword == "" {
		errs = append(errs, errors.New("--robot-user, --robot-password: want a login and a password, or neither flag for the defaults"))
	} else if err := (robot.Options{User: c.robotUser, Password: c.robotPassword}).Check(); err != nil {
		errs = append(errs, fmt.Errorf("--robot-user, --robot-password: %w", err))
	}
	if c.robotRateLimit, err = strconv.ParseFloat(*t.robotRateText, 64); err != nil || !(c.robotRateLimit >= 0 && c.robotRateLimit <= robot.MaxRateLimitScale) {
		errs = append(errs, fmt.Errorf("--robot-rate-limit %q: want 0 (off) or a positive scale up to %g, such as 0.1", *t.robotRateText, float64(robot.MaxRateLimitScale)))
	}
	if c.robotInterval, err = time.ParseDuration(*t.robotIntervalText); err != nil || c.robotInterval <= 0 {
		errs = append(errs, fmt.Errorf("--robot-rate-limit-interval %q: want a positive duration such as 1h", *t.robotIntervalText))
	}
	if c.logFormat != "text" && c.logFormat != "json" {
		errs = append(errs, fmt.Errorf("--log-format %q: want text or json", c.logFormat))
	}
	if err := (fakecloud.Options{Tokens: c.tokens, ReadOnlyTokens: c.readOnly, Projects: c.projects}).Check(); err != nil {
		errs = append(errs, fmt.Errorf("--project: %w", err))
	}
	return c, errors.Join(errs...)
}

func splitList(s string) []string {
	var out []string
	for v := range strings.SplitSeq(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// run serves (the serve subcommand) until ctx ends. ready, if not nil, receives the bound address.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer, ready chan<- string) error {
	c, err := parseConfig(args, getenv, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	hopts := &slog.HandlerOptions{Level: c.logLevel}
	var handler slog.Handler = slog.NewTextHandler(stderr, hopts)
	if c.logFormat == "json" {
		handler = slog.NewJSONHandler(stderr, hopts)
	}
	log := slog.New(handler)
	rate := c.rateLimit
	if rate == 0 {
		rate = -1
	}
	robotScale := c.robotRateLimit
	if robotScale == 0 {
		robotScale = -1
	}
	opts := fakecloud.Options{
		Tokens: c.tokens, ReadOnlyTokens: c.readOnly, Projects: c.projects, ActionDuration: c.actionDuration, ActionPolls: c.actionPolls, Realism: c.realism,
		RateLimit: rate, RateLimitRefill: c.rateRefill, IDSeed: c.idSeed, Logger: log, AdminToken: c.adminToken,
		LoadBalancerIPv4Range: c.lbRange, RobotUser: c.robotUser, RobotPassword: c.robotPassword,
		RobotRateLimitScale: robotScale, RobotRateLimitInterval: c.robotInterval,
	}
	if len(c.lbTargets) > 0 {
		opts.LoadBalancerDial = c.lbTargets.dial
	}
	fc := fakecloud.New(opts)
	defer fc.Close()
	restored := false
	var stateFile *fakecloud.StateFile
	stopPersist := func() error { return nil }
	if c.stateFile != "" {
		if stateFile, restored, err = fc.OpenStateFile(c.stateFile); err != nil {
			return err
		}
		// A start that fails below releases the lock and writes nothing.
		defer func() { _ = stateFile.Close() }()
		stopPersist = stateFile.Close
		if restored {
			log.Info("restored the world from the state file", "file", c.stateFile)
		}
	}
	if c.seed != "" && restored {
		log.Info("not seeding: the state file already holds a world", "seed", c.seed)
	}
	if c.seed != "" && !restored {
		w, err := fakecloud.LoadWorld(c.seed)
		if err != nil {
			return fmt.Errorf("seed %s: %w", c.seed, err)
		}
		if err := fc.Seed(w); err != nil {
			return fmt.Errorf("seed %s: %w", c.seed, err)
		}
		log.Info("seeded world", "file", c.seed, "networks", len(w.Networks), "servers", len(w.Servers), "load_balancers", len(w.LoadBalancers))
	}
	for _, path := range c.scenarios {
		if err := fc.LoadScenarioFile(path); err != nil {
			return fmt.Errorf("scenario %w", err)
		}
		log.Info("running scenario", "file", path)
	}
	ln, err := net.Listen("tcp", c.listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	if c.dnsListen != "" {
		ns, err := fc.ListenDNS(c.dnsListen)
		if err != nil {
			_ = ln.Close()
			return fmt.Errorf("dns-listen: %w", err)
		}
		defer func() { _ = ns.Close() }()
		log.Info("serving DNS for the primary zones", "addr", ns.Addr())
	}
	srv := fc.HTTPServer()
	tokenNote := "configured tokens"
	if len(c.tokens) == 0 && len(c.readOnly) == 0 {
		tokenNote = "default token " + fakecloud.DefaultToken
	}
	log.Info("serving the Hetzner Cloud API", "url", "http://"+ln.Addr().String()+"/v1", "auth", tokenNote,
		"action_duration", c.actionDuration, "rate_limit", c.rateLimit, "realism", c.realism.Mode,
		"robot_url", "http://"+ln.Addr().String()+"/robot", "robot_user", c.robotUser)
	if ready != nil {
		ready <- ln.Addr().String()
	}
	if stateFile != nil {
		stateFile.Persist(c.stateInterval)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return errors.Join(err, stopPersist())
	case <-ctx.Done():
	}
	log.Info("shutting down")
	fc.Close()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return errors.Join(fmt.Errorf("shutdown: %w", err), stopPersist())
	}
	if err := stopPersist(); err != nil {
		return fmt.Errorf("write state file: %w", err)
	}
	return nil
}
