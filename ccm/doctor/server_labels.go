package doctor

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	cloudproviderapi "k8s.io/cloud-provider/api"

	"github.com/hcloudlab/hcloud-ccm/ccm"
)

// explainOverlay says why a --node-ip that is none of the server's
// addresses is the Node's InternalIP: it lies in
// HCLOUD_INSTANCES_INTERNAL_IP_CIDRS.
func (d *doctor) explainOverlay(n *corev1.Node, s *hcloud.Server) {
	for ip := range strings.SplitSeq(n.Annotations[cloudproviderapi.AnnotationAlphaProvidedIPAddr], ",") {
		addr, err := netip.ParseAddr(strings.TrimSpace(ip))
		if err != nil || owns(s, addr) {
			continue
		}
		if cidr, ok := ccm.OverlayCIDR(ip, d.cfg); ok {
			d.found.ok("node-ip", "node/"+n.Name, fmt.Sprintf("--node-ip %s is kept as the Node's InternalIP: it lies in HCLOUD_INSTANCES_INTERNAL_IP_CIDRS (%s), "+
				"your own network; the server's public addresses stay its ExternalIPs", addr, cidr))
		}
	}
}

// checkServerLabels tells, for each Node of a cloud server, what the
// server label sync makes of it: labels it cannot write and why, labels
// the Node has that the CCM did not write, and, with the sync off, labels
// it wrote that now stay as they are.
func (d *doctor) checkServerLabels() {
	cfg := d.cfg.ServerLabels
	synced := 0
	for i := range d.nodes {
		n := &d.nodes[i]
		s := d.servers[n.Name]
		if s == nil {
			continue
		}
		subject := "node/" + n.Name
		if !cfg.On() {
			if written := n.Annotations[ccm.AnnotationManagedLabels] + n.Annotations[ccm.AnnotationManagedTaints]; written != "" {
				d.found.warn("server-labels", subject, "labels or taints the CCM wrote from server labels stay as they are: the server label sync is off",
					"set HCLOUD_INSTANCES_LABELS_ENABLED, HCLOUD_INSTANCES_LABELS_VERBATIM or HCLOUD_INSTANCES_TAINTS_ENABLED as before, or remove them and the annotations "+
						ccm.AnnotationManagedLabels+" and "+ccm.AnnotationManagedTaints+" by hand")
			}
			continue
		}
		st := ccm.ServerLabelsOf(n, s.Labels, cfg)
		switch {
		case len(st.Problems) > 0:
			d.found.warn("server-labels", subject, fmt.Sprintf("server %s: %s; the Node's labels and taints are left as they are", s.Name, strings.Join(st.Problems, "; ")),
				"fix the server's labels (Console, or hcloud server add-label --overwrite / remove-label)")
		case len(st.Conflicts) > 0:
			d.found.warn("server-labels", subject, fmt.Sprintf("the Node has %s, which the CCM did not write: left as it is", strings.Join(st.Conflicts, ", ")),
				fmt.Sprintf("remove it from the Node (kubectl label node %s <key>-, or kubectl taint node %s <key>:<Effect>-) for the server's to apply", n.Name, n.Name))
		case st.Pending:
			d.found.ok("server-labels", subject, fmt.Sprintf("server %s's labels differ from the Node's: the CCM writes them within the inventory's staleness bound (see staleness)", s.Name))
		default:
			synced++
		}
	}
	if cfg.On() && synced > 0 {
		d.found.ok("server-labels", "nodes", fmt.Sprintf("%d Nodes carry their servers' labels and taints as the sync writes them", synced))
	}
}
