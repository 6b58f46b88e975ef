package scale

import (
	"fmt"
	"strings"
	"time"

	"github.com/hcloudlab/hcloud-ccm/internal/refdoc"
)

// Row is one phase's measurement.
type Row struct {
	Phase    string
	Key      string // which aim applies
	Requests uint64 // cloud requests, from fakecloud's counters
	// Robot requests to fakecloud's Robot webservice, and how many it
	// refused with its hourly limit (403 RATE_LIMIT_EXCEEDED).
	Robot, RobotRefused uint64
	Wall                time.Duration
	PeakRSS             uint64        // bytes, the CCM's peak resident memory during the phase
	CPU                 time.Duration // the CCM's CPU time during the phase
	Notes               string
	Routes              string // the requests by method and route, most first

	rate       bool    // Requests were counted over a window: report them per hour
	peakReset  bool    // PeakRSS is this phase's, not the process's lifetime peak
	cloudShare float64 // init burst: Hetzner API time over the time to the last Node
}

func (row Row) summary() string {
	return fmt.Sprintf("%d requests, %d Robot (%s), %s, peak RSS %s, CPU %s", row.Requests, row.Robot, row.Routes, round(row.Wall), mib(row.PeakRSS), round(row.CPU))
}

// Report is a run's rows and setting.
type Report struct {
	Config Config
	Date   time.Time
	Rows   []Row
}

// perHour turns a window's count into requests per hour of the CCM's clock.
func (rep *Report) perHour(row Row) float64 {
	return float64(row.Requests) * float64(time.Hour) / float64(rep.Config.Window)
}

// rate is a window's count as "36 /h (3 in 5m0s)".
func (rep *Report) rate(row Row) string {
	return fmt.Sprintf("%.0f /h (%d in %s)", rep.perHour(row), row.Requests, round(rep.Config.scaled(rep.Config.Window)))
}

// robotPerHour is perHour of the Robot requests.
func (rep *Report) robotPerHour(row Row) float64 {
	return float64(row.Robot) * float64(time.Hour) / float64(rep.Config.Window)
}

// robot is the Robot column: a count, per hour for a window, and the
// refusals by the webservice's limit.
func (rep *Report) robot(row Row) string {
	if rep.Config.Dedicated == 0 {
		return "–"
	}
	s := fmt.Sprint(row.Robot)
	if row.rate {
		s = fmt.Sprintf("%.0f /h (%d)", rep.robotPerHour(row), row.Robot)
	}
	if row.RobotRefused > 0 {
		s += fmt.Sprintf(", **%d refused**", row.RobotRefused)
	}
	return s
}

// robotSteadyAim is the Robot requests an hour the steady state may send
// with dedicated Nodes (the webservice allows 200 GET /server an hour to
// every tool of a webservice user together).
const robotSteadyAim = 30

// aim is one figure the issue asks for, scaled to the run's size.
type aim struct {
	text     string
	official string
	met      func(Row) bool
}

// aims gives each phase its aim. At N=1,000 and S=100 they are the
// issue's; the init burst allows one listing (N/50 pages) plus five, and
// the Service figures scale with S.
func (rep *Report) aims() map[string]aim {
	n, s := rep.Config.Nodes, rep.Config.Services
	pages := (n + 49) / 50
	burst := (n+49)/50 + 5
	return map[string]aim{
		"burst": {fmt.Sprintf("≤ %d requests; Hetzner API ≤ 10%% of the time", burst), fmt.Sprintf("a %d-page listing per 10 s of burst", pages),
			func(r Row) bool { return r.Requests <= uint64(burst) && r.cloudShare <= 0.10 }},
		"steady": {"≤ 60 /h" + rep.robotAimText(), fmt.Sprintf("%d /h", 12*pages),
			func(r Row) bool {
				return rep.perHour(r) <= 60 && (rep.Config.Dedicated == 0 || rep.robotPerHour(r) <= robotSteadyAim)
			}},
		"notready1": {"≤ 90 /h", fmt.Sprintf("%d–%d /h", 321*pages, 360*pages), func(r Row) bool { return rep.perHour(r) <= 90 }},
		"notreadyN": {"≤ 300 /h", fmt.Sprintf("%d–%d /h", 321*pages, 360*pages), func(r Row) bool { return rep.perHour(r) <= 300 }},
		"create": {fmt.Sprintf("≤ %d requests, ≤ 30 s", s+10), fmt.Sprintf("34–64 per Service (%d–%d), ≥ 7 s each", 34*s, 64*s),
			func(r Row) bool { return r.Requests <= uint64(s+10) && r.Wall <= 30*time.Second }},
		"resync":          {"0", "re-sends every Service", func(r Row) bool { return r.Requests == 0 }},
		"replace":         {fmt.Sprintf("≤ %d requests", 2*s+10), "≈1,650 at 100 load balancers (model)", func(r Row) bool { return r.Requests <= uint64(2*s+10) }},
		"delete":          {fmt.Sprintf("≤ %d requests", 3*s), fmt.Sprintf("%d (3 per Service)", 3*s), func(r Row) bool { return r.Requests <= uint64(3*s) }},
		"deleted":         {"≤ 15 s", "13 s at 60 nodes", func(r Row) bool { return r.Wall <= 15*time.Second }},
		"joindeleted":     {"≤ 15 s", "13 s at 60 nodes", func(r Row) bool { return r.Wall <= 15*time.Second }},
		"notreadydeleted": {"≤ 15 s", "13 s (side by side; 64 s here before)", func(r Row) bool { return r.Wall <= 15*time.Second }},
		"address": {"≤ " + round(rep.Config.scaled(10*time.Minute)).String(), "one status period (a listing each)",
			func(r Row) bool { return r.Wall <= rep.Config.scaled(10*time.Minute) }},
	}
}

// peakRSSAim is the CCM's memory aim over the whole run.
const peakRSSAim = 128 << 20

// Missed lists the aims the run did not reach.
func (rep *Report) Missed() []string {
	var missed []string
	aims := rep.aims()
	var peak uint64
	for _, row := range rep.Rows {
		peak = max(peak, row.PeakRSS)
		if a, ok := aims[row.Key]; ok && !a.met(row) {
			missed = append(missed, fmt.Sprintf("%s: %s, aim %s", row.Phase, rep.measured(row), a.text))
		}
		if row.RobotRefused > 0 {
			missed = append(missed, fmt.Sprintf("%s: the Robot webservice's hourly limit was reached (%d requests refused), aim: never", row.Phase, row.RobotRefused))
		}
	}
	if peak > peakRSSAim {
		missed = append(missed, fmt.Sprintf("CCM peak RSS %s, aim ≤ %s", mib(peak), mib(peakRSSAim)))
	}
	return missed
}

func (rep *Report) measured(row Row) string {
	s := fmt.Sprintf("%d requests, %s", row.Requests, round(row.Wall))
	if row.rate {
		s = rep.rate(row)
	}
	if rep.Config.Dedicated > 0 {
		s += ", Robot " + rep.robot(row)
	}
	return s
}

// robotAimText is the steady state's Robot aim, with dedicated Nodes.
func (rep *Report) robotAimText() string {
	if rep.Config.Dedicated == 0 {
		return ""
	}
	return fmt.Sprintf("; Robot ≤ %d /h", robotSteadyAim)
}

// Markdown renders the report as BENCHMARKS.md holds it.
func (rep *Report) Markdown() string {
	c := rep.Config
	var b strings.Builder
	fmt.Fprintf(&b, "Run on %s: %d Nodes (%d of them on dedicated servers), %d Services, %d NotReady at once, a pool of %d targets, speed %g (rate windows of %s, counted per hour of the CCM's clock), fakecloud actions %s.\n\n",
		rep.Date.Format("2006-01-02"), c.Nodes, c.Dedicated, c.Services, c.NotReady, c.Pool, c.Speed, c.Window, c.ActionDuration)
	b.WriteString("| phase | cloud requests | Robot requests | time | CCM peak RSS | CCM CPU | aim | reached | official CCM |\n|---|---:|---:|---:|---:|---:|---|---|---|\n")
	aims := rep.aims()
	var peak uint64
	for _, row := range rep.Rows {
		peak = max(peak, row.PeakRSS)
		a := aims[row.Key]
		requests := fmt.Sprint(row.Requests)
		if row.rate {
			requests = rep.rate(row)
		}
		rss := mib(row.PeakRSS)
		if !row.peakReset {
			rss += " (lifetime)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", row.Phase, requests, rep.robot(row), round(row.Wall), rss, round(row.CPU), a.text,
			yesNo(a.met(row) && row.RobotRefused == 0), a.official)
	}
	fmt.Fprintf(&b, "| whole run | | | | %s | | ≤ %s | %s | |\n\n", mib(peak), mib(peakRSSAim), yesNo(peak <= peakRSSAim))
	for _, row := range rep.Rows {
		notes := row.Notes
		if row.Routes != "" {
			notes = strings.TrimPrefix(notes+". Requests: "+row.Routes, ". ")
		}
		if notes != "" {
			fmt.Fprintf(&b, "- %s: %s.\n", row.Phase, notes)
		}
	}
	return b.String()
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// WriteInto writes the report into the file's make scale block
// (BENCHMARKS.md).
func (rep *Report) WriteInto(path string) error {
	return refdoc.WriteBlock(path, "make scale", rep.Markdown())
}
