// Package fakecloud is an in-memory simulator of the Hetzner Cloud API (and
// of the Robot webservice for dedicated servers) that unmodified clients
// such as hcloud-go can be pointed at.
//
// # Starting it
//
// New returns a *Server, an http.Handler serving the API under /v1. A test
// serves it with the test kit, package fakecloudtest, and points hcloud-go
// at it with DefaultToken:
//
//	fc := fakecloud.New(fakecloud.Options{}) // actions finish at once
//	url := fakecloudtest.Serve(t, fc)         // on loopback until the test ends
//	client := fakecloudtest.Client(url, fakecloud.DefaultToken)
//
// The kit's client polls running actions without waiting; the kit also
// has a clock a test moves by hand (for Options.Now) and a bounded wait.
//
// Options has a field for each flag of the fakecloud command: tokens, how
// long actions run, the rate limit, the seed for IDs, realism, load
// balancers that carry traffic, the Robot webservice's login and limits;
// and, for Go only, a clock tests can move (Now), a Logger, the journal's
// size and a Middleware.
//
// # The world
//
// Seed plants a World of named resources (LoadWorld and ParseWorld read one
// from YAML or JSON), through the same validation as API requests.
// Export and Import snapshot the whole world; Reset empties it and
// ResetToSeed goes back to the last seed. OpenStateFile keeps it in a file
// across restarts.
//
// # Scripting failures
//
// AddFault adds a Rule that fails matching requests (a status, an error
// code, latency, a hang, a dropped connection, a change applied and then
// answered with an error); AddActionFault makes the next actions of a
// command fail or run longer; Apply makes an Event happen behind the
// clients' back (a server deleted or powered off, a target unhealthy, a
// lock, an address moved); LoadScenario runs timed steps of all three.
// SetRateLimit and SetRealism change the budget and how the simulator reads
// what the API's documentation leaves open.
//
// # Asserting
//
// Requests counts requests by method and route template, such as
// Requests("GET", "/servers/{id}"), so a test can assert API economy;
// Counters lists them all and Journal returns recent requests with their
// status, the fault that applied and the actions they started.
//
// The admin API under /_fakecloud/ offers the same over HTTP. The
// repository's docs/ has the tutorials and the reference: seed worlds,
// faults and scenarios, events, the admin API, API coverage and deviations.
package fakecloud
