package world

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

const (
	maxFirewallRules = 50  // rules a firewall holds: the description of set_rules (maxItems)
	maxRuleAddresses = 100 // CIDRs in a rule's source_ips or destination_ips: ibid.
	maxRuleDesc      = 255 // characters of a rule's description
)

// checkRules validates the rules of a create or set_rules as the API
// does, adding every fault to f, and returns them as the API keeps them:
// each CIDR in its canonical form (lower case, IPv6 at its shortest, as
// the API answers: terraform-provider-hcloud issue 870 and its
// TestAccFirewallResource_Normalization), and the in rules before the
// out rules, each in the order given (the live order since 2025-09,
// hetznercloud/cli PR 1169).
func checkRules(f *apierr.Fields, rules []schema.FirewallRuleRequest) []schema.FirewallRule {
	if len(rules) > maxFirewallRules {
		f.Add("rules", "a firewall has at most %d rules, not %d", maxFirewallRules, len(rules))
		return nil
	}
	out := make([]schema.FirewallRule, 0, len(rules))
	for i, r := range rules {
		bad := func(field, format string, args ...any) {
			f.Add("rules."+field, "rule %d: %s", i, fmt.Sprintf(format, args...))
		}
		rule := schema.FirewallRule{Direction: r.Direction, Protocol: r.Protocol, SourceIPs: []string{}, DestinationIPs: []string{}}
		switch r.Direction {
		case "in":
			rule.SourceIPs = checkCIDRs(bad, "source_ips", r.SourceIPs)
			if len(r.SourceIPs) == 0 {
				// The live message (hcloud-k8s/terraform-hcloud-kubernetes issue 198).
				f.Add("rules.source_ips", "source_ips needs to have at least one entry")
			}
			if len(r.DestinationIPs) > 0 {
				bad("destination_ips", "an in rule takes source_ips only")
			}
		case "out":
			rule.DestinationIPs = checkCIDRs(bad, "destination_ips", r.DestinationIPs)
			if len(r.DestinationIPs) == 0 {
				f.Add("rules.destination_ips", "destination_ips needs to have at least one entry")
			}
			if len(r.SourceIPs) > 0 {
				bad("source_ips", "an out rule takes destination_ips only")
			}
		default:
			bad("direction", "%q is not one of in, out", r.Direction)
		}
		switch r.Protocol {
		case "tcp", "udp":
			if r.Port == nil {
				bad("port", "is required for protocol %s", r.Protocol)
			} else if !validPort(*r.Port) {
				bad("port", "%q is not a port (1 to 65535), a range such as 1024-5000, or any", *r.Port)
			} else {
				p := *r.Port
				rule.Port = &p
			}
		case "icmp", "esp", "gre":
			if r.Port != nil {
				bad("port", "applies to protocols tcp and udp only, not %s", r.Protocol)
			}
		default:
			bad("protocol", "%q is not one of tcp, udp, icmp, esp, gre", r.Protocol)
		}
		if r.Description != nil {
			if utf8.RuneCountInString(*r.Description) > maxRuleDesc {
				bad("description", "is longer than %d characters", maxRuleDesc)
			}
			d := *r.Description
			rule.Description = &d
		}
		out = append(out, rule)
	}
	// The in rules first, each direction in the order given.
	slices.SortStableFunc(out, func(a, b schema.FirewallRule) int {
		return boolOrder(a.Direction == "out") - boolOrder(b.Direction == "out")
	})
	return out
}

func boolOrder(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkCIDRs validates a rule's addresses: networks with empty host bits
// or single hosts, written as CIDRs, at most 100; it returns them in
// canonical form.
func checkCIDRs(bad func(field, format string, args ...any), field string, cidrs []string) []string {
	if len(cidrs) > maxRuleAddresses {
		bad(field, "has %d entries, at most %d are allowed", len(cidrs), maxRuleAddresses)
	}
	out := make([]string, 0, len(cidrs))
	for _, c := range cidrs {
		p, err := netip.ParsePrefix(strings.TrimSpace(c))
		switch {
		case err != nil || strings.TrimSpace(c) != c:
			bad(field, "%q is not a CIDR such as 10.0.0.0/8 or 2001:db8::/32", c)
		case p.Masked() != p:
			bad(field, "%s is not the start of the cidr block %s", c, p.Masked())
		default:
			out = append(out, p.String())
		}
	}
	return out
}

// validPort accepts any, a port, or a range of ports low-high.
func validPort(s string) bool {
	if s == "any" {
		return true
	}
	lo, hi, isRange := strings.Cut(s, "-")
	a, err := port(lo)
	if err != nil {
		return false
	}
	if !isRange {
		return true
	}
	b, err := port(hi)
	return err == nil && a < b
}

func port(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != s {
		return 0, fmt.Errorf("not a port")
	}
	return n, nil
}
