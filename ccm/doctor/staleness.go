package doctor

import (
	"fmt"

	"github.com/hcloudlab/hcloud-ccm/ccm"
)

// checkStaleness states how late a change to a server shows on its Node,
// with the CCM's settings and the project's size.
func (d *doctor) checkStaleness() {
	if d.cloud == nil {
		return
	}
	n := len(d.cloud.servers)
	withAction, without, feed := ccm.StalenessBounds(n, d.cfg)
	how := fmt.Sprintf("%d servers: every answer about a server is at most %s old (HCLOUD_INVENTORY_MAX_AGE)", n, withAction)
	if feed {
		how = fmt.Sprintf("%d servers: a change that leaves an action (power, type, IPs, deletion) shows within %s; one that leaves none (a rename, labels) within %s "+
			"(a listing every 6 min a page, at most HCLOUD_INVENTORY_LISTING_MAX_AGE); hcloud_ccm_inventory_staleness_seconds on /metrics is the age now",
			n, withAction, without)
	}
	if d.cfg.ServerLabels.On() {
		bound := withAction
		if feed {
			bound = without // a label change leaves no action
		}
		how += fmt.Sprintf("; server labels reach the Nodes within %s and the label sync's 10 s", bound)
	}
	d.found.ok("staleness", "inventory", how)
}
