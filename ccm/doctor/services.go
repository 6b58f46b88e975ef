package doctor

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

// lbServices are the Services the CCM makes load balancers for: of type
// LoadBalancer, of the class it serves (HCLOUD_LOAD_BALANCERS_CLASS), or
// of none unless HCLOUD_LOAD_BALANCERS_SERVE_WITHOUT_CLASS=false.
func (d *doctor) lbServices() []*corev1.Service {
	var out []*corev1.Service
	for i := range d.services {
		if s := &d.services[i]; d.cfg.LoadBalancerClass.OrDefault().Serves(s) {
			out = append(out, s)
		}
	}
	return out
}

// checkServices checks each load balancer Service's annotations with the
// controller's own parser, then what they name against the cloud.
func (d *doctor) checkServices(ctx context.Context) {
	svcs := d.lbServices()
	if len(svcs) == 0 {
		return
	}
	if !d.cfg.LoadBalancers.Enabled {
		for _, svc := range svcs {
			d.found.warn("service", "service/"+svc.Namespace+"/"+svc.Name, "HCLOUD_LOAD_BALANCERS_ENABLED=false: no load balancer is made for it",
				"set HCLOUD_LOAD_BALANCERS_ENABLED=true, or give the Service a loadBalancerClass another controller serves")
		}
		return
	}
	if d.cloud == nil {
		return
	}
	for _, svc := range svcs {
		if svc.DeletionTimestamp == nil { // one being deleted needs no load balancer
			d.checkService(ctx, svc)
		}
	}
	d.checkSecretAccess(ctx)
}

func (d *doctor) checkService(ctx context.Context, svc *corev1.Service) {
	subject := "service/" + svc.Namespace + "/" + svc.Name
	c, err := loadbalancer.ValidateService(svc, d.cfg.LoadBalancers, d.networkID, d.zone)
	if err != nil {
		d.found.fail("service", subject, strings.ReplaceAll(err.Error(), "\n", "; "), "correct the annotation (kubectl annotate --overwrite)")
		return
	}
	if len(c.CertificateSecrets) > 0 {
		d.secretUsers[svc.Namespace] = append(d.secretUsers[svc.Namespace], svc.Name)
	}
	if msg := loadbalancer.SourceRangesWarning(svc); msg != "" {
		d.found.warn("service", subject, msg, "remove the source ranges, or restrict the Nodes with a Hetzner firewall or a NetworkPolicy")
	}
	lb := d.cloud.lbByUID[string(svc.UID)]
	before := len(d.found)
	fail := func(msg, fix string) { d.found.fail("service", subject, msg, fix) }
	if c.ExternallyManaged {
		d.checkExternal(svc, subject, c.Name)
		return
	}

	types, err := d.cloud.lbTypes.get(ctx, d.api.LoadBalancerType.All)
	if err != nil {
		fail(fmt.Sprintf("cannot list load balancer types: %v", err), "run doctor again")
		return
	}
	if i := slices.IndexFunc(types, func(t *hcloud.LoadBalancerType) bool { return t.Name == c.Type }); i < 0 {
		fail(fmt.Sprintf("load balancer type %q does not exist (the types are %s)", c.Type, names(types, func(t *hcloud.LoadBalancerType) string { return t.Name })),
			fmt.Sprintf("set %s (or HCLOUD_LOAD_BALANCERS_TYPE) to one of them", annotation.Type))
	} else {
		d.checkDeprecatedType(subject, types[i], types, lb != nil)
		typ := c.Type
		if lb != nil && lb.LoadBalancerType != nil && lb.LoadBalancerType.MaxServices > types[i].MaxServices {
			typ = lb.LoadBalancerType.Name // types only grow: a bigger one is kept
		}
		if err := loadbalancer.PortsOverLimit(loadbalancer.TCPPorts(svc), typ, types); err != nil {
			fail(err.Error(), fmt.Sprintf("set %s to a type that takes them, or split the ports over Services", annotation.Type))
		}
	}
	d.checkTLSSecrets(ctx, svc, subject, c.CertificateSecrets)

	locations, err := d.cloud.locations.get(ctx, d.api.Location.All)
	if err != nil {
		fail(fmt.Sprintf("cannot list locations: %v", err), "run doctor again")
		return
	}
	zone := ""
	switch {
	case c.Location != "":
		i := slices.IndexFunc(locations, func(l *hcloud.Location) bool { return l.Name == c.Location })
		if i < 0 {
			fail(fmt.Sprintf("location %q does not exist (the locations are %s)", c.Location, names(locations, func(l *hcloud.Location) string { return l.Name })),
				fmt.Sprintf("set %s (or HCLOUD_LOAD_BALANCERS_LOCATION) to one of them", annotation.Location))
			break
		}
		zone = string(locations[i].NetworkZone)
		if asked := svc.Annotations[string(annotation.NetworkZone)]; asked != "" && asked != zone {
			d.found.warn("service", subject, fmt.Sprintf("location %s is in network zone %s; the network-zone annotation %s is ignored", c.Location, zone, asked),
				fmt.Sprintf("remove %s, or make it %s", annotation.NetworkZone, zone))
		}
	case c.NetworkZone != "":
		zone = c.NetworkZone
		if !slices.ContainsFunc(locations, func(l *hcloud.Location) bool { return string(l.NetworkZone) == zone }) {
			fail(fmt.Sprintf("network zone %q does not exist (the zones are %s)", zone, zones(locations)),
				fmt.Sprintf("set %s (or HCLOUD_LOAD_BALANCERS_NETWORK_ZONE) to one of them", annotation.NetworkZone))
		}
	case lb == nil:
		fail("no location or network zone: its load balancer cannot be created",
			fmt.Sprintf("set %s, HCLOUD_LOAD_BALANCERS_LOCATION or HCLOUD_NETWORK", annotation.Location))
	}
	if zone != "" && d.networkID != 0 && d.zone != "" && zone != d.zone {
		fail(fmt.Sprintf("its load balancer would be in network zone %s, but network %s is in %s: it cannot join the network", zone, d.cfg.Network, d.zone),
			fmt.Sprintf("choose a location in %s", d.zone))
	}

	if len(c.Certificates) > 0 {
		certs, err := d.cloud.certificates.get(ctx, d.api.Certificate.All)
		if err != nil {
			fail(fmt.Sprintf("cannot list certificates: %v", err), "run doctor again")
			return
		}
		for _, ref := range c.Certificates {
			id, idErr := strconv.ParseInt(ref.Ref, 10, 64)
			if !slices.ContainsFunc(certs, func(cert *hcloud.Certificate) bool { return (idErr == nil && cert.ID == id) || cert.Name == ref.Ref }) {
				fail(fmt.Sprintf("certificate %q of %s does not exist", ref.Ref, ref.Annotation),
					"upload it (hcloud certificate create) or name an existing one by ID or name")
			}
		}
	}
	d.checkPrimaryIPs(ctx, subject, c, lb)
	if len(d.found) > before {
		return
	}
	switch age := d.now.Sub(svc.CreationTimestamp.Time); {
	case len(svc.Status.LoadBalancer.Ingress) == 0 && age > pendingGrace:
		d.found.warn("service", subject, fmt.Sprintf("annotations valid, but no address after %s (EXTERNAL-IP <pending>)", age.Round(time.Second)),
			"kubectl describe service "+svc.Name+" -n "+svc.Namespace+" shows the CCM's events; check that a CCM replica leads (the lease check above)")
	case lb != nil:
		d.found.ok("service", subject, fmt.Sprintf("annotations valid; load balancer %s (ID %d)", lb.Name, lb.ID))
	default:
		d.found.ok("service", subject, "annotations valid; no load balancer yet")
	}
}

// checkExternal checks that the load balancer an externally managed
// Service names exists and is no other Service's.
func (d *doctor) checkExternal(svc *corev1.Service, subject, name string) {
	i := slices.IndexFunc(d.cloud.lbs, func(lb *hcloud.LoadBalancer) bool { return lb.Name == name })
	switch {
	case i < 0:
		d.found.fail("service", subject, fmt.Sprintf("externally managed, but no load balancer is named %s: the CCM never creates one", name),
			fmt.Sprintf("create it (terraform apply), or correct %s", annotation.Name))
	case d.cloud.lbs[i].Labels[loadbalancer.ServiceUIDLabel] != "" && d.cloud.lbs[i].Labels[loadbalancer.ServiceUIDLabel] != string(svc.UID):
		d.found.fail("service", subject, fmt.Sprintf("externally managed, but load balancer %s belongs to the Service with UID %s", name, d.cloud.lbs[i].Labels[loadbalancer.ServiceUIDLabel]),
			fmt.Sprintf("name a load balancer no Service owns in %s", annotation.Name))
	default:
		d.found.ok("service", subject, fmt.Sprintf("annotations valid; externally managed load balancer %s (ID %d)", name, d.cloud.lbs[i].ID))
	}
}

// pendingGrace is how long a Service may wait for its address before
// doctor points at it: a create takes seconds.
const pendingGrace = 2 * time.Minute

// checkOrphans finds load balancers of Services that are gone, and
// targets on servers that are gone.
func (d *doctor) checkOrphans() {
	if d.cloud == nil {
		return
	}
	uids := map[string]bool{}
	for _, svc := range d.lbServices() {
		uids[string(svc.UID)] = true
	}
	unserved := map[string]*corev1.Service{} // LoadBalancer Services of a class not served
	for i := range d.services {
		if s := &d.services[i]; s.Spec.Type == corev1.ServiceTypeLoadBalancer && !uids[string(s.UID)] {
			unserved[string(s.UID)] = s
		}
	}
	for _, lb := range d.cloud.lbs {
		subject := "load-balancer/" + lb.Name
		uid := lb.Labels[loadbalancer.ServiceUIDLabel]
		switch svc := unserved[uid]; {
		case uid == "" || !d.servicesRead || uids[uid]:
		case svc != nil:
			d.found.warn("load-balancer", subject, fmt.Sprintf("made for Service %s/%s, whose class (%s) this CCM no longer serves: it is no longer updated, and is deleted with the Service",
				svc.Namespace, svc.Name, className(svc)), "set HCLOUD_LOAD_BALANCERS_CLASS or HCLOUD_LOAD_BALANCERS_SERVE_WITHOUT_CLASS back to serve it, or recreate the Service with the class you want")
		default:
			d.found.warn("load-balancer", subject, fmt.Sprintf("labelled %s=%s, a Service that no longer exists or is no longer of type LoadBalancer: an orphan that still costs money",
				loadbalancer.ServiceUIDLabel, uid), fmt.Sprintf("hcloud load-balancer delete %s, once nothing uses its IPs", lb.Name))
		}
		for _, t := range lb.Targets {
			if t.Type != hcloud.LoadBalancerTargetTypeServer || t.Server == nil || t.Server.Server == nil {
				continue
			}
			if id := t.Server.Server.ID; d.cloud.byID[id] == nil {
				d.found.warn("load-balancer", subject, fmt.Sprintf("target server ID %d does not exist", id),
					fmt.Sprintf("hcloud load-balancer remove-target %s --server %d", lb.Name, id))
			}
		}
	}
}

// className is svc's loadBalancerClass, or "none".
func className(svc *corev1.Service) string {
	if svc.Spec.LoadBalancerClass == nil {
		return "none"
	}
	return *svc.Spec.LoadBalancerClass
}

func names[T any](items []T, name func(T) string) string {
	var out []string
	for _, it := range items {
		out = append(out, name(it))
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

func zones(locations []*hcloud.Location) string {
	var out []string
	for _, l := range locations {
		if z := string(l.NetworkZone); !slices.Contains(out, z) {
			out = append(out, z)
		}
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// checkDeprecatedType reports a deprecated type as the CCM's sync does:
// while it can be ordered, a warning with its date; after, a failure for a
// Service whose load balancer is yet to be made, a warning for one that
// has one.
func (d *doctor) checkDeprecatedType(subject string, lt *hcloud.LoadBalancerType, types []*hcloud.LoadBalancerType, exists bool) {
	if !lt.IsDeprecated() {
		return
	}
	var orderable []string
	for _, t := range types {
		if !t.IsDeprecated() || !d.now.After(t.UnavailableAfter()) {
			orderable = append(orderable, t.Name)
		}
	}
	fix := fmt.Sprintf("set %s (or HCLOUD_LOAD_BALANCERS_TYPE) to one of %s", annotation.Type, strings.Join(orderable, ", "))
	switch {
	case !d.now.After(lt.UnavailableAfter()):
		d.found.warn("service", subject, fmt.Sprintf("load balancer type %s is deprecated and can be ordered until %s", lt.Name, lt.UnavailableAfter().Format(time.DateOnly)), fix)
	case exists:
		d.found.warn("service", subject, fmt.Sprintf("load balancer type %s can no longer be ordered: the load balancer goes on with it, but none could be made again", lt.Name), fix)
	default:
		d.found.fail("service", subject, fmt.Sprintf("load balancer type %s can no longer be ordered: its load balancer cannot be created", lt.Name), fix)
	}
}
