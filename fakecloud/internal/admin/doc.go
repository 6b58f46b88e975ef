// Package admin serves fakecloud's admin API under /_fakecloud: seeding,
// state, fault rules, events, scenarios, the journal, counters and the
// rate limit, over the server's operations, which it knows only as an
// interface.
package admin
