package world

// What each event type does, in words: the reference page
// docs/reference/fakecloud/events.md is generated from these, and a test
// fails when an event type has no entry here, or an entry has no type.

// eventDocs says what each event type does, in eventTypes' order.
var eventDocs = map[string]string{
	"delete_server":     "deletes the server behind the clients' back; records `delete_server`",
	"power_off_server":  "powers the server off; records `stop_server`, or, under pessimistic realism, nothing (a shutdown from inside the server)",
	"power_on_server":   "powers the server on; records `start_server`",
	"set_target_health": "sets a load balancer target's `health_status` (`healthy`, `unhealthy`, `unknown`) for the service on `listen_port` (0: every service); it wins over real health checks",
	"lock":              "locks a `resource` (`server`, `load_balancer`, `network`, `certificate`) for `for`: changes to it answer 423 `locked`",
	"set_server_ip":     "gives the server public IPv4 `ip`, recording `unassign_primary_ip` and `assign_primary_ip` (naming the server and the primary IP; under pessimistic realism the primary IP alone); with `network`, its private IP there instead, recording `detach_from_network` and `attach_to_network`",

	"add_dedicated_server":       "a Robot dedicated server, as in a seed's `dedicated_servers`, listed from now on",
	"remove_dedicated_server":    "gone from `GET /server`; its number answers `SERVER_NOT_FOUND`",
	"cancel_dedicated_server":    "`cancelled: true`, still listed until removed",
	"power_off_dedicated_server": "`operating_status` `shut off`; refused for a tower server",
	"power_on_dedicated_server":  "`operating_status` `running`; refused for a tower server",
	"rename_dedicated_server":    "`server_name` becomes `name`",
}
