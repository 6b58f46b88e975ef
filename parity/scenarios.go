package parity

import (
	"context"
	"regexp"
)

// scenario is one life the kit plays against a target.
type scenario struct {
	name  string
	about string
	// What it creates on the live API and for about how long, for the
	// plan a live run prints first. A server's primary IPv4 and IPv6
	// come with it.
	minutes                          int
	servers, loadBalancers, networks int
	changesType                      bool // a server ends on the next type's price
	run                              func(ctx context.Context, s *session) error
}

// scenarios are the kit's scenarios, in the order they run.
func scenarios() []scenario {
	return []scenario{{
		name:    "server-life",
		about:   "create, rename, label, power off and on, shut down, change type, attach and detach, primary IPv4 unassigned and assigned, delete; feed checks 1 to 5",
		minutes: 14, servers: 1, networks: 1, changesType: true,
		run: serverLife,
	}, {
		name:    "load-balancer-life",
		about:   "create with a service and a server target, add and remove a label selector target, change the service, delete",
		minutes: 5, servers: 1, loadBalancers: 1,
		run: loadBalancerLife,
	}, {
		name:    "routes",
		about:   "a route added to a network and deleted; feed check 4 for network actions",
		minutes: 2, networks: 1,
		run: routes,
	}, {
		name:    "mistakes",
		about:   "not found, a name taken, locked, invalid input, rate limited (fakecloud only)",
		minutes: 3, servers: 1, networks: 1,
		run: mistakes,
	}, {
		name:    "public-record",
		about:   "the requests whose live answers public material shows: a server created in a network, a primary IP unassigned from a running server, a retired type, a type where it is not sold, a body that is not JSON, a spent rate limit (fakecloud only); compared on what the record shows",
		minutes: 3, servers: 1, networks: 1,
		run: publicRecord,
	}}
}

// ScenarioNames are the names of the scenarios match selects (nil: all).
func ScenarioNames(match *regexp.Regexp) []string {
	var names []string
	for _, sc := range selected(match) {
		names = append(names, sc.name)
	}
	return names
}

func selected(match *regexp.Regexp) []scenario {
	var out []scenario
	for _, sc := range scenarios() {
		if match == nil || match.MatchString(sc.name) {
			out = append(out, sc)
		}
	}
	return out
}
