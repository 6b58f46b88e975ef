package ccm

import (
	"time"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/inventory"
)

// StalenessBounds says how late a change to a node's server shows in the
// CCM's answers about a project of n servers with cfg: one that leaves an
// action (power, type, IPs, deletion) within withAction, one that leaves
// none (a rename) within withoutAction. The change feed is used from 3
// pages of servers; below, every answer is at most HCLOUD_INVENTORY_MAX_AGE
// old. ccm doctor reports these.
func StalenessBounds(n int, cfg Config) (withAction, withoutAction time.Duration, feed bool) {
	return inventory.StalenessBounds(n, cfg.ActionsEnabled, cfg.InventoryMaxAge, cfg.ListingMaxAge)
}
