package event

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/dedicated"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/jsontime"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/netaddr"
)

// Event is something that happens to the cloud behind its clients' back.
// Like an operator's change through the Console or the API, every change
// records the actions the real API records for it, already finished.
type Event struct {
	// Type is delete_server, power_off_server, power_on_server,
	// set_target_health, lock, set_server_ip, set_zone_status,
	// deprecate_load_balancer_type, or one of a dedicated
	// server's: add_dedicated_server, remove_dedicated_server,
	// cancel_dedicated_server, power_off_dedicated_server,
	// power_on_dedicated_server, rename_dedicated_server.
	Type string `json:"type"`

	Server       int64 `json:"server,omitempty"`        // delete_server, power_*_server, set_server_ip, set_target_health
	LoadBalancer int64 `json:"load_balancer,omitempty"` // set_target_health
	// ServerName and LoadBalancerName name the resource instead of its ID,
	// for scenarios written before the IDs are known.
	ServerName       string            `json:"server_name,omitempty"`
	LoadBalancerName string            `json:"load_balancer_name,omitempty"`
	IP               string            `json:"ip,omitempty"`          // set_target_health (an ip target), set_server_ip (the new address)
	ListenPort       int               `json:"listen_port,omitempty"` // set_target_health; 0 for every service
	Health           string            `json:"health,omitempty"`      // set_target_health: healthy, unhealthy, unknown, or checked to end it
	Resource         string            `json:"resource,omitempty"`    // lock: a kind's name, e.g. server, load_balancer, floating_ip
	ID               int64             `json:"id,omitempty"`          // lock
	For              jsontime.Duration `json:"for,omitempty"`         // lock
	Network          int64             `json:"network,omitempty"`     // set_server_ip: change the IP in this network instead of the public IPv4
	Zone             int64             `json:"zone,omitempty"`        // set_zone_status
	ZoneName         string            `json:"zone_name,omitempty"`   // set_zone_status, instead of zone
	Status           string            `json:"status,omitempty"`      // set_zone_status: ok, updating, error

	// LoadBalancerType names a load balancer type by name or ID, and
	// Announced and UnavailableAfter its deprecation
	// (deprecate_load_balancer_type); Announced defaults to the moment
	// the event happens.
	LoadBalancerType string    `json:"load_balancer_type,omitempty"`
	Announced        time.Time `json:"announced,omitzero"`
	UnavailableAfter time.Time `json:"unavailable_after,omitzero"`

	// ServerNumber names a dedicated server (the *_dedicated_server events
	// but add); Name is its new name (rename_dedicated_server).
	ServerNumber int64  `json:"server_number,omitempty"`
	Name         string `json:"name,omitempty"`
	// DedicatedServer is the server add_dedicated_server adds.
	DedicatedServer *dedicated.SeedDedicatedServer `json:"dedicated_server,omitempty"`
}

// DedicatedTypes are the event types that change a dedicated server.
var DedicatedTypes = []string{"add_dedicated_server", "remove_dedicated_server", "cancel_dedicated_server",
	"power_off_dedicated_server", "power_on_dedicated_server", "rename_dedicated_server"}

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
	"set_zone_status":   {"zone", "zone_name", "status"},

	"deprecate_load_balancer_type": {"load_balancer_type", "announced", "unavailable_after"},

	"add_dedicated_server":       {"dedicated_server"},
	"remove_dedicated_server":    {"server_number"},
	"cancel_dedicated_server":    {"server_number"},
	"power_off_dedicated_server": {"server_number"},
	"power_on_dedicated_server":  {"server_number"},
	"rename_dedicated_server":    {"server_number", "name"},
}

// eventTypes lists the event types in the order errors name them.
var eventTypes = append([]string{"delete_server", "power_off_server", "power_on_server", "set_target_health", "lock", "set_server_ip", "set_zone_status",
	"deprecate_load_balancer_type"},
	DedicatedTypes...)

// Check reports every problem of an event's shape at once, naming the
// field: an unknown type, a missing or unused field, a value out of range.
// Whether what it names exists is judged when it happens.
// Check refuses a malformed event, naming its fields, without applying
// it.
func Check(e Event) error { return e.check() }

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
		{"zone", e.Zone != 0}, {"zone_name", e.ZoneName != ""}, {"status", e.Status != ""},
		{"load_balancer_type", e.LoadBalancerType != ""}, {"announced", !e.Announced.IsZero()}, {"unavailable_after", !e.UnavailableAfter.IsZero()},
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
	if e.Server < 0 || e.LoadBalancer < 0 || e.ID < 0 || e.Network < 0 || e.ListenPort < 0 || e.Zone < 0 {
		bad("server", "IDs and ports must be positive")
	}
	switch e.Type {
	case "add_dedicated_server":
		if e.DedicatedServer == nil {
			bad("dedicated_server", "add_dedicated_server needs the server, e.g. {server_name: bm-1}")
		} else if err := e.DedicatedServer.Check(); err != nil {
			for line := range strings.SplitSeq(err.Error(), "\n") {
				errs = append(errs, errors.New("dedicated_server."+line))
			}
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
		if !slices.Contains([]string{"healthy", "unhealthy", "unknown", "checked"}, e.Health) {
			bad("health", "%q is not one of healthy, unhealthy, unknown, checked", e.Health)
		}
	case "lock":
		if e.Resource == "" { // which kinds there are, the world judges
			bad("resource", "a lock names the kind of what it holds, e.g. server, load_balancer, floating_ip")
		}
		if e.ID == 0 && !(e.Resource == "server" && server) && !(e.Resource == "load_balancer" && e.LoadBalancerName != "") {
			bad("id", "a lock needs the resource's id (or server, server_name, load_balancer_name for those)")
		}
		if e.For <= 0 {
			bad("for", "a lock needs a duration, e.g. \"30s\"")
		}
	case "set_zone_status":
		if (e.Zone != 0) == (e.ZoneName != "") {
			bad("zone", "set_zone_status needs zone or zone_name, one of them")
		}
		if !slices.Contains([]string{"ok", "updating", "error"}, e.Status) {
			bad("status", "%q is not one of ok, updating, error", e.Status)
		}
	case "deprecate_load_balancer_type":
		if e.LoadBalancerType == "" {
			bad("load_balancer_type", "deprecate_load_balancer_type needs the type's name or ID, e.g. lb11")
		}
		if e.UnavailableAfter.IsZero() {
			bad("unavailable_after", "deprecate_load_balancer_type needs the time after which the type can no longer be ordered, e.g. 2026-12-01T00:00:00Z")
		} else if !e.Announced.IsZero() && e.UnavailableAfter.Before(e.Announced) {
			bad("unavailable_after", "%s is before announced %s", e.UnavailableAfter.Format(time.RFC3339), e.Announced.Format(time.RFC3339))
		}
	case "set_server_ip":
		if !server {
			bad("server", "set_server_ip needs server or server_name")
		}
		if a, err := netip.ParseAddr(e.IP); err != nil || !a.Is4() {
			bad("ip", "%q is not an IPv4 address", e.IP)
		} else if e.Network == 0 && (!netaddr.HostAddr(a) || a.IsPrivate()) {
			bad("ip", "%s is not a public unicast address", a)
		}
	}
	return errors.Join(errs...)
}

// What each event type does, in words: the reference page
// docs/reference/fakecloud/events.md is generated from these, and a test
// fails when an event type has no entry here, or an entry has no type.

// eventDocs says what each event type does, in eventTypes' order.
var eventDocs = map[string]string{
	"delete_server":     "deletes the server behind the clients' back; records `delete_server`",
	"power_off_server":  "powers the server off; records `stop_server`, or, under pessimistic realism, nothing (a shutdown from inside the server)",
	"power_on_server":   "powers the server on; records `start_server`",
	"set_target_health": "sets a load balancer target's `health_status` (`healthy`, `unhealthy`, `unknown`) for the service on `listen_port` (0: every service); it wins over real health checks until `checked` hands the target back to them",
	"lock":              "locks a `resource`, any kind fakecloud simulates (`server`, `load_balancer`, `floating_ip`, ...), for `for`: changes to it answer 423 `locked`",
	"set_zone_status":   "sets a zone's `status` as Hetzner's publishing would: `updating` freezes what `--dns-listen` answers for it at this moment, `error` makes it answer SERVFAIL, `ok` serves the zone as the API holds it again; records no action",
	"set_server_ip":     "gives the server public IPv4 `ip`, recording `unassign_primary_ip` and `assign_primary_ip` (naming the server and the primary IP; under pessimistic realism the primary IP alone); with `network`, its private IP there instead, recording `detach_from_network` and `attach_to_network`",

	"deprecate_load_balancer_type": "marks a load balancer type deprecated, as the API announces it: its `deprecation` (in `GET /load_balancer_types` and in every load balancer of the type) becomes `{announced, unavailable_after}` (`announced` defaults to now); after `unavailable_after` a create with it answers `invalid_input` and a `change_type` to it `invalid_load_balancer_type`, while load balancers of the type go on; records no action",

	"add_dedicated_server":       "a Robot dedicated server, as in a seed's `dedicated_servers`, listed from now on",
	"remove_dedicated_server":    "gone from `GET /server`; its number answers `SERVER_NOT_FOUND`",
	"cancel_dedicated_server":    "`cancelled: true`, still listed until removed",
	"power_off_dedicated_server": "`operating_status` `shut off`; refused for a tower server",
	"power_on_dedicated_server":  "`operating_status` `running`; refused for a tower server",
	"rename_dedicated_server":    "`server_name` becomes `name`",
}
