package world

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// eventFields lists, per event type, the fields it reads; check refuses
// the others, so a scenario step and POST /_fakecloud/events judge an
// event alike, before anything happens.
var eventFields = map[string][]string{
	"delete_server":     {"server", "server_name"},
	"power_off_server":  {"server", "server_name"},
	"power_on_server":   {"server", "server_name"},
	"set_target_health": {"load_balancer", "load_balancer_name", "server", "server_name", "ip", "listen_port", "health"},
	"lock":              {"resource", "id", "server", "server_name", "load_balancer", "load_balancer_name", "for"},
	"set_server_ip":     {"server", "server_name", "ip", "network"},

	"add_dedicated_server":       {"dedicated_server"},
	"remove_dedicated_server":    {"server_number"},
	"cancel_dedicated_server":    {"server_number"},
	"power_off_dedicated_server": {"server_number"},
	"power_on_dedicated_server":  {"server_number"},
	"rename_dedicated_server":    {"server_number", "name"},
}

// eventTypes lists the event types in the order errors name them.
var eventTypes = append([]string{"delete_server", "power_off_server", "power_on_server", "set_target_health", "lock", "set_server_ip"},
	dedicatedEvents...)

var lockResources = []string{"server", "load_balancer", "network", "certificate"}

// check reports every problem of an event's shape at once, naming the
// field: an unknown type, a missing or unused field, a value out of range.
// Whether what it names exists is judged when it happens.
// CheckEvent refuses a malformed event, naming its fields, without
// applying it.
func CheckEvent(e Event) error { return e.check() }

func (e Event) check() error {
	used, ok := eventFields[e.Type]
	if !ok {
		return fmt.Errorf("type: %q is not one of %s", e.Type, strings.Join(eventTypes, ", "))
	}
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"server", e.Server != 0}, {"server_name", e.ServerName != ""}, {"load_balancer", e.LoadBalancer != 0},
		{"load_balancer_name", e.LoadBalancerName != ""}, {"ip", e.IP != ""}, {"listen_port", e.ListenPort != 0},
		{"health", e.Health != ""}, {"resource", e.Resource != ""}, {"id", e.ID != 0}, {"for", e.For != 0}, {"network", e.Network != 0},
		{"server_number", e.ServerNumber != 0}, {"name", e.Name != ""}, {"dedicated_server", e.DedicatedServer != nil},
	} {
		if f.set && !slices.Contains(used, f.name) {
			bad(f.name, "is not used by %s", e.Type)
		}
	}
	server := e.Server != 0 || e.ServerName != ""
	if e.Server != 0 && e.ServerName != "" {
		bad("server_name", "give server or server_name, not both")
	}
	if e.LoadBalancer != 0 && e.LoadBalancerName != "" {
		bad("load_balancer_name", "give load_balancer or load_balancer_name, not both")
	}
	if e.Server < 0 || e.LoadBalancer < 0 || e.ID < 0 || e.Network < 0 || e.ListenPort < 0 {
		bad("server", "IDs and ports must be positive")
	}
	switch e.Type {
	case "add_dedicated_server":
		if e.DedicatedServer == nil {
			bad("dedicated_server", "add_dedicated_server needs the server, e.g. {server_name: bm-1}")
		}
	case "remove_dedicated_server", "cancel_dedicated_server", "power_off_dedicated_server", "power_on_dedicated_server", "rename_dedicated_server":
		if e.ServerNumber <= 0 {
			bad("server_number", "%s needs the dedicated server's positive server_number", e.Type)
		}
		if e.Type == "rename_dedicated_server" && e.Name == "" {
			bad("name", "rename_dedicated_server needs the new name")
		}
	case "delete_server", "power_off_server", "power_on_server":
		if !server {
			bad("server", "%s needs server or server_name", e.Type)
		}
	case "set_target_health":
		if e.LoadBalancer == 0 && e.LoadBalancerName == "" {
			bad("load_balancer", "set_target_health needs load_balancer or load_balancer_name")
		}
		if server == (e.IP != "") {
			bad("server", "set_target_health needs the target: server, server_name or ip, one of them")
		}
		if e.IP != "" {
			if _, err := netip.ParseAddr(e.IP); err != nil {
				bad("ip", "%q is not an IP address", e.IP)
			}
		}
		if !slices.Contains([]string{"healthy", "unhealthy", "unknown"}, e.Health) {
			bad("health", "%q is not one of healthy, unhealthy, unknown", e.Health)
		}
	case "lock":
		if !slices.Contains(lockResources, e.Resource) {
			bad("resource", "%q is not one of server, load_balancer, network, certificate", e.Resource)
		}
		if e.ID == 0 && !(e.Resource == "server" && server) && !(e.Resource == "load_balancer" && e.LoadBalancerName != "") {
			bad("id", "a lock needs the resource's id (or server, server_name, load_balancer_name for those)")
		}
		if e.For <= 0 {
			bad("for", "a lock needs a duration, e.g. \"30s\"")
		}
	case "set_server_ip":
		if !server {
			bad("server", "set_server_ip needs server or server_name")
		}
		if a, err := netip.ParseAddr(e.IP); err != nil || !a.Is4() {
			bad("ip", "%q is not an IPv4 address", e.IP)
		}
	}
	return errors.Join(errs...)
}
