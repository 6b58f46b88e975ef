package ccm

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/inventory"
)

var (
	inventoryLookupsDesc = prometheus.NewDesc("hcloud_ccm_inventory_lookups_total",
		"Server lookups by how they were answered: hit (from memory), targeted (one request), gone (the API confirmed no such server).",
		[]string{"result"}, nil)
	inventoryListingsDesc = prometheus.NewDesc("hcloud_ccm_inventory_listings_total",
		"Full paged listings of all servers.", nil, nil)
	inventoryFeedPollsDesc = prometheus.NewDesc("hcloud_ccm_inventory_action_polls_total",
		"Polls of GET /servers/actions and GET /primary_ips/actions that tell which servers changed.", nil, nil)
	inventoryFeedGapsDesc = prometheus.NewDesc("hcloud_ccm_inventory_action_gaps_total",
		"Polls after which actions may have left the listing unseen (one the last poll saw was gone, or the last poll was over 20 minutes before), answered by a full listing.", nil, nil)
	inventoryStalenessDesc = prometheus.NewDesc("hcloud_ccm_inventory_staleness_seconds",
		"Age of the oldest server entry the inventory holds; with the change feed, the oldest it answers from without a request.", nil, nil)
	inventoryStalenessBoundDesc = prometheus.NewDesc("hcloud_ccm_inventory_staleness_bound_seconds",
		"How old an entry the change feed vouches for may grow: a change that leaves no action (a rename) shows within it.", nil, nil)
	budgetRemainingDesc = prometheus.NewDesc("hcloud_ccm_api_budget_remaining",
		"Requests left in the project's rate limit, from the last RateLimit headers plus what refilled since.", nil, nil)
	budgetLimitDesc = prometheus.NewDesc("hcloud_ccm_api_budget_limit",
		"The project's rate limit (RateLimit-Limit).", nil, nil)
	budgetWaitDesc = prometheus.NewDesc("hcloud_ccm_api_budget_wait_seconds_total",
		"Time background requests waited so as to leave the reserve untouched.", nil, nil)
)

// collector exposes the inventory's and the budget's figures at scrape
// time, so they are counted in one place only.
type collector struct {
	inv    *inventory.Inventory
	budget *inventory.Budget
}

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{inventoryLookupsDesc, inventoryListingsDesc, inventoryFeedPollsDesc, inventoryFeedGapsDesc,
		inventoryStalenessDesc, inventoryStalenessBoundDesc, budgetRemainingDesc, budgetLimitDesc, budgetWaitDesc, serverCacheDesc} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	s := c.inv.Stats.Snapshot()
	ch <- prometheus.MustNewConstMetric(inventoryLookupsDesc, prometheus.CounterValue, float64(s.Hits), "hit")
	ch <- prometheus.MustNewConstMetric(inventoryLookupsDesc, prometheus.CounterValue, float64(s.Targeted), "targeted")
	ch <- prometheus.MustNewConstMetric(inventoryLookupsDesc, prometheus.CounterValue, float64(s.Gone), "gone")
	ch <- prometheus.MustNewConstMetric(inventoryListingsDesc, prometheus.CounterValue, float64(s.Listings))
	// The inventory is one cache of every server, as the official CCM's in
	// its default mode "all".
	for k, n := range c.inv.Stats.CacheCounts() {
		subsystem := k.Subsystem
		if subsystem == "" {
			subsystem = subsystemNone
		}
		ch <- prometheus.MustNewConstMetric(serverCacheDesc, prometheus.CounterValue, float64(n), subsystem, "all", k.Result)
	}
	ch <- prometheus.MustNewConstMetric(inventoryFeedPollsDesc, prometheus.CounterValue, float64(s.FeedPolls))
	ch <- prometheus.MustNewConstMetric(inventoryFeedGapsDesc, prometheus.CounterValue, float64(s.FeedGaps))
	age, bound := c.inv.Staleness()
	ch <- prometheus.MustNewConstMetric(inventoryStalenessDesc, prometheus.GaugeValue, age.Seconds())
	if bound > 0 {
		ch <- prometheus.MustNewConstMetric(inventoryStalenessBoundDesc, prometheus.GaugeValue, bound.Seconds())
	}
	ch <- prometheus.MustNewConstMetric(budgetWaitDesc, prometheus.CounterValue, c.budget.Waited().Seconds())
	if remaining, limit, known := c.budget.Snapshot(); known {
		ch <- prometheus.MustNewConstMetric(budgetRemainingDesc, prometheus.GaugeValue, remaining)
		ch <- prometheus.MustNewConstMetric(budgetLimitDesc, prometheus.GaugeValue, float64(limit))
	}
}
