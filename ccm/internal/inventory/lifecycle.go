package inventory

import "time"

// Freshness says how old an answer a caller takes.
type Freshness struct {
	maxAge time.Duration
	// ceiling, when set, marks a caller that asks about the same server
	// again and again: the node lifecycle controller, every monitor period
	// while a node is NotReady. The first ask of a run needs an answer no
	// older than maxAge/12, so a server deleted or powered off under a node
	// that just went NotReady is seen at once. For the rest of the run's
	// first ceiling (5 minutes by default), when an operator deletes a hung
	// or powered-off server, asks take answers maxAge/8 old (7.5 s): a read
	// every other monitor period (10 s), so the deletion shows within one,
	// or, with many such servers, one poll of the feed for all. Later asks
	// take answers half as old as the run,
	// from maxAge up to ceiling. Those, and the first, never take the
	// feed's word: a server shut down from inside leaves no action.
	ceiling time.Duration
	// since, with a ceiling, is when the node last turned NotReady (its
	// Ready condition's transition): a new transition starts a new run,
	// however recent the last ask, so the first check after it reads the
	// server.
	since time.Time
	// caller names who asks, for the server cache metrics (For).
	caller string
	// urgent asks for node initialisation (Urgently).
	urgent bool
}

// For is f asked by a caller, as the official CCM's server cache metrics
// name its subsystems (instances_v2, routes).
func (f Freshness) For(caller string) Freshness {
	f.caller = caller
	return f
}

// Urgently is f asked for node initialisation: its requests (reads,
// listings, polls of the feed) go through the inventory's urgent client,
// which may use the budget's reserve.
func (f Freshness) Urgently() Freshness {
	f.urgent = true
	return f
}

// run is a run of repeated asks about one server.
type run struct {
	start time.Time // its first ask
	since time.Time // the NotReady transition it follows
}

// Within is a freshness of maxAge that the feed may vouch for.
func Within(maxAge time.Duration) Freshness { return Freshness{maxAge: maxAge} }

// Repeated is the freshness of a caller that asks about the same server
// again and again (see Freshness.ceiling), in a run that started when
// the node turned NotReady at since.
func Repeated(maxAge, ceiling time.Duration, since time.Time) Freshness {
	return Freshness{maxAge: maxAge, ceiling: ceiling, since: since}
}

// allowed is how old an answer may be, run into a run of repeated asks
// (a freshness with a ceiling).
func (f Freshness) allowed(run time.Duration) time.Duration {
	switch {
	case run == 0:
		return f.maxAge / 12
	case run < f.ceiling:
		// Between one monitor period and two, whatever the jitter of the
		// asks: a read every other one.
		return f.maxAge / 8
	}
	return min(max(run/2, f.maxAge), max(f.ceiling, f.maxAge))
}

// earlyAlone is how many servers in early runs are read one by one: the
// feed's poll costs two requests.
const earlyAlone = 2

// earlyRuns counts the runs that started within ceiling of now; the
// caller holds mu.
func (inv *Inventory) earlyRuns(now time.Time, ceiling time.Duration) int {
	n := 0
	for _, r := range inv.runs {
		if now.Sub(r.start) < ceiling {
			n++
		}
	}
	return n
}
