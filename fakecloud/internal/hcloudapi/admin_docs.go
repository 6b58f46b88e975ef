package hcloudapi

// What the admin API's routes and the event types do, in words: the
// reference pages docs/reference/fakecloud/admin-api.md and events.md are
// generated from these, and a test fails when a route or an event type
// has no entry here, or an entry has no route or type.

// adminRouteDocs says what each admin route does, by "METHOD /path".
var adminRouteDocs = []struct{ route, does string }{
	{"GET /faults", "rules and action faults, with hits"},
	{"POST /faults", "add a fault rule (201, with its `id`)"},
	{"DELETE /faults", "remove every rule and action fault"},
	{"DELETE /faults/{id}", "remove one"},
	{"POST /action-faults", "add an action fault"},
	{"POST /events", "apply an [event](events.md) (204)"},
	{"POST /scenarios", "start a scenario"},
	{"GET /rate-limit", "read the bucket: `{remaining, refill}`"},
	{"PUT /rate-limit", "set `{remaining, refill}`"},
	{"GET /realism", "read `{mode, action_retention}`"},
	{"PUT /realism", "set `{mode, action_retention}` (`mode` required: `optimistic` or `pessimistic`)"},
	{"GET /state-file", "whether the state file holds every acknowledged change: 200, 503 while writes fail, 404 without `--state-file`; with `saved_at`, `unsaved`, `failures`, `last_error` and `failing_since`"},
	{"POST /reset", "`{\"to\": \"empty\"}` or `{\"to\": \"seed\"}` (the last seeded world)"},
	{"POST /seed", "replace the world with a [seed world](seed-worlds.md)"},
	{"GET /state", "export the whole world (a snapshot; running actions, locks and ID counters included)"},
	{"PUT /state", "import a snapshot"},
	{"GET /journal", "recent requests: `method`, `path`, `template`, `status`, `user_agent`, `correlation_id`, `duration`, `fault` (the rule that applied), `actions` (the commands of the actions it started); filters `method`, `template`, `path` (prefix), `status`, `since` (sequence number), `limit`"},
	{"DELETE /journal", "clear the journal"},
	{"GET /counters", "request counts by method, route and status"},
	{"DELETE /counters", "reset the counters"},
	{"GET /robot/limits", "the Robot webservice's spent limits (`usage`: `user`, `endpoint`, `used`, `limit`, `interval`) and blocked client IPs (`blocked`: `ip`, `until`)"},
	{"DELETE /robot/limits", "forget the Robot webservice's limits and blocks"},
}

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
