package loadbalancer

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

// A load balancer is created on the Primary IPs public-net-ipv4 and
// public-net-ipv6 name, as the official CCM v1.39.0 does: the API takes
// them on create only, so a later change is a Warning and nothing else.
// The IDs are recorded in labels at creation, so that removing an
// annotation is told apart from a load balancer adopted as it was.

// publicNetLabels record, on a load balancer created on Primary IPs, the
// ID of each.
var publicNetLabels = [2]string{"hcloud-ccm/public-net-ipv4", "hcloud-ccm/public-net-ipv6"}

// publicNetKeys are the annotations of the IPv4 and the IPv6 Primary IP.
var publicNetKeys = [2]annotation.Key{annotation.PublicNetIPv4, annotation.PublicNetIPv6}

// onPrimaryIPs reports whether a new load balancer is to take Primary IPs.
func (s lbSpec) onPrimaryIPs() bool { return s.PublicNet != [2]int64{} }

// publicNetErrors refuses Primary IPs for a load balancer whose public
// interface is to be off: the API assigns them to the public interface.
func publicNetErrors(svc *corev1.Service, o annotation.Options) []error {
	if o.DisablePublicNetwork == nil || !*o.DisablePublicNetwork {
		return nil
	}
	var errs []error
	for i, id := range [2]int64{o.PublicNetIPv4, o.PublicNetIPv6} {
		if id != 0 {
			errs = append(errs, &annotation.Error{Key: publicNetKeys[i].Short(), Value: svc.Annotations[string(publicNetKeys[i])],
				Accepted: "unset while disable-public-network (or HCLOUD_LOAD_BALANCERS_DISABLE_PUBLIC_NETWORK) is true: a Primary IP is an address of the public interface"})
		}
	}
	return errs
}

// createPublicNet is the public_net of POST /load_balancers, with the
// labels that record it; nil without Primary IPs.
func createPublicNet(want lbSpec, labels map[string]string) *hcloud.LoadBalancerCreateOptsPublicNet {
	if !want.onPrimaryIPs() {
		return nil
	}
	pn := &hcloud.LoadBalancerCreateOptsPublicNet{}
	for i, id := range want.PublicNet {
		if id == 0 {
			continue
		}
		labels[publicNetLabels[i]] = strconv.FormatInt(id, 10)
		if i == 0 {
			pn.IPv4 = &hcloud.PrimaryIP{ID: id}
		} else {
			pn.IPv6 = &hcloud.PrimaryIP{ID: id}
		}
	}
	return pn
}

// publicNetNotices say where an existing load balancer's Primary IPs
// differ from the annotations: one set to a Primary IP it is not on
// (added or changed), or one removed that it was created with. Its
// addresses are left as they are.
func publicNetNotices(want lbSpec, have *hcloud.LoadBalancer) []lbNotice {
	var notices []lbNotice
	for i, id := range want.PublicNet {
		holds, ip := have.PublicNet.IPv4.ID, have.PublicNet.IPv4.IP
		if i == 1 {
			holds, ip = have.PublicNet.IPv6.ID, have.PublicNet.IPv6.IP
		}
		created := have.Labels[publicNetLabels[i]]
		var why string
		switch {
		case id != 0 && id != holds:
			why = fmt.Sprintf("annotation %s=%d applies only when a load balancer is created", publicNetKeys[i], id)
		case id == 0 && created != "":
			why = fmt.Sprintf("it was created on Primary IP %s (label %s), which it holds until it is deleted; removing annotation %s does not free it", created, publicNetLabels[i], publicNetKeys[i])
		default:
			continue
		}
		notices = append(notices, lbNotice{Reason: eventPublicNetKept, Message: fmt.Sprintf(
			"load balancer %s keeps its address %s: %s; delete and recreate the Service to change it", have.Name, ip, why)})
	}
	return notices
}

// publicNetRefused reports whether the API refused a create for its
// Primary IPs: one missing, assigned, of the other family, elsewhere or
// blocked.
func publicNetRefused(err error) bool {
	var herr hcloud.Error
	if !errors.As(err, &herr) {
		return false
	}
	if strings.HasPrefix(string(herr.Code), "primary_ip_") {
		return true
	}
	if d, ok := herr.Details.(hcloud.ErrorDetailsInvalidInput); ok {
		for _, f := range d.Fields {
			if strings.HasPrefix(f.Name, "public_net") {
				return true
			}
		}
	}
	return false
}

// publicNetRefusal is the InvalidAnnotation event's message for a create
// the API refused for its Primary IPs.
func publicNetRefusal(want lbSpec, err error) string {
	var given []string
	for i, id := range want.PublicNet {
		if id != 0 {
			given = append(given, fmt.Sprintf("%s=%q", publicNetKeys[i], strconv.FormatInt(id, 10)))
		}
	}
	where := "the load balancer's location"
	if want.Location != "" {
		where = want.Location
	}
	return fmt.Sprintf("annotation %s: the API refused the Primary IP: %v; want the ID of an existing Primary IP of that family, unassigned, in %s",
		strings.Join(given, ", "), err, where)
}

// PublicNetChangeWarning is the admission warning for an update of a
// Service whose load balancer exists (old has an address) that adds,
// changes or removes public-net-ipv4 or public-net-ipv6: the load
// balancer keeps its addresses. "" for none.
func PublicNetChangeWarning(old, svc *corev1.Service) string {
	if len(old.Status.LoadBalancer.Ingress) == 0 {
		return ""
	}
	var changed []string
	for _, k := range publicNetKeys {
		was, had := old.Annotations[string(k)]
		is, has := svc.Annotations[string(k)]
		if had != has || strings.TrimSpace(was) != strings.TrimSpace(is) {
			changed = append(changed, fmt.Sprintf("%s (%s to %s)", k, quoteOr(was, had), quoteOr(is, has)))
		}
	}
	if len(changed) == 0 {
		return ""
	}
	return fmt.Sprintf("annotation %s changed: it applies only when a load balancer is created, so the existing one keeps its addresses; delete and recreate the Service to change them",
		strings.Join(changed, ", "))
}

// quoteOr is v quoted, or "unset".
func quoteOr(v string, set bool) string {
	if !set {
		return "unset"
	}
	return strconv.Quote(v)
}
