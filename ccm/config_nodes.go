package ccm

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// ServerLabelsConfig says which server labels the CCM keeps on Nodes as
// labels and taints (node_labels_sync.go).
type ServerLabelsConfig struct {
	// Labels copies every server label whose key has no prefix as the
	// Node label labelPrefix+key (HCLOUD_INSTANCES_LABELS_ENABLED).
	Labels bool
	// Verbatim are server label keys copied under their own name, such
	// as the cluster-autoscaler's hcloud/node-group
	// (HCLOUD_INSTANCES_LABELS_VERBATIM).
	Verbatim []string
	// Taints makes each server label taint.<effect>/<name>=<value> the
	// taint taintPrefix+name=value:Effect (HCLOUD_INSTANCES_TAINTS_ENABLED).
	Taints bool
}

// On says whether any server label goes onto Nodes.
func (c ServerLabelsConfig) On() bool { return c.Labels || c.Taints || len(c.Verbatim) > 0 }

// loadServerLabels reads HCLOUD_INSTANCES_LABELS_ENABLED,
// HCLOUD_INSTANCES_LABELS_VERBATIM and HCLOUD_INSTANCES_TAINTS_ENABLED.
func (r *envReader) loadServerLabels() ServerLabelsConfig {
	c := ServerLabelsConfig{
		Labels: r.boolean("HCLOUD_INSTANCES_LABELS_ENABLED", false),
		Taints: r.boolean("HCLOUD_INSTANCES_TAINTS_ENABLED", false),
	}
	for k := range strings.SplitSeq(r.str("HCLOUD_INSTANCES_LABELS_VERBATIM", ""), ",") {
		if k = strings.TrimSpace(k); k == "" || slices.Contains(c.Verbatim, k) {
			continue
		}
		if why := verbatimRefused(k); why != "" {
			r.errs = append(r.errs, fmt.Errorf("HCLOUD_INSTANCES_LABELS_VERBATIM: %q %s; want server label keys such as hcloud/node-group, comma-separated", k, why))
			continue
		}
		c.Verbatim = append(c.Verbatim, k)
	}
	return c
}

// verbatimRefused says why a key cannot be copied under its own name, or
// "" when it can: it must be a label key, and none that Kubernetes, the
// official CCM or this one set themselves, nor a taint's server label.
func verbatimRefused(k string) string {
	if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
		return "is not a label key: " + strings.Join(msgs, "; ")
	}
	prefix, _, hasPrefix := strings.Cut(k, "/")
	switch {
	case !hasPrefix:
		return ""
	case prefix == "node-role.kubernetes.io" || prefix == "node-restriction.kubernetes.io":
		return "" // roles and placement: labels Kubernetes leaves to their owner
	case reservedDomain(prefix, "kubernetes.io") || reservedDomain(prefix, "k8s.io"):
		return "is in a namespace Kubernetes reserves for its own labels"
	case reservedDomain(prefix, "hetzner.cloud"):
		return "is in the namespace of the CCM's own labels"
	case taintRule(k) != nil:
		return "is a taint's server label (taint.<effect>/<name>)"
	}
	return ""
}

// reservedDomain reports whether prefix is domain or a subdomain of it.
func reservedDomain(prefix, domain string) bool {
	return prefix == domain || strings.HasSuffix(prefix, "."+domain)
}

// loadInternalIPCIDRs reads HCLOUD_INSTANCES_INTERNAL_IP_CIDRS: the
// operator's own networks (an overlay: WireGuard, Tailscale, Calico), in
// which a kubelet's --node-ip is kept as the Node's InternalIP
// (node_ip_overlay.go).
func (r *envReader) loadInternalIPCIDRs() []netip.Prefix {
	var out []netip.Prefix
	for s := range strings.SplitSeq(r.str("HCLOUD_INSTANCES_INTERNAL_IP_CIDRS", ""), ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		switch {
		case err != nil:
			r.errs = append(r.errs, fmt.Errorf("HCLOUD_INSTANCES_INTERNAL_IP_CIDRS: %q is not a CIDR; want ranges such as 100.64.0.0/10,fd7a:115c:a1e0::/48, comma-separated", s))
		case p.Bits() == 0:
			r.errs = append(r.errs, fmt.Errorf("HCLOUD_INSTANCES_INTERNAL_IP_CIDRS: %q takes every address, so any --node-ip would pass; name your network's range, such as 100.64.0.0/10", s))
		default:
			out = append(out, p.Masked())
		}
	}
	return out
}
