package admin

// What the admin API's routes do, in words: the reference page
// docs/reference/fakecloud/admin-api.md is generated from these, and a
// test fails when a route has no entry here, or an entry has no route.

// adminRouteDocs says what each admin route does, by "METHOD /path".
var adminRouteDocs = []struct{ route, does string }{
	{"GET /faults", "rules and action faults, with hits"},
	{"POST /faults", "add a fault rule (201, with its `id`)"},
	{"DELETE /faults", "remove every rule and action fault"},
	{"DELETE /faults/{id}", "remove one"},
	{"POST /action-faults", "add an action fault"},
	{"POST /events", "apply an [event](events.md) (204)"},
	{"POST /tokens", "give the default project a token from now on, `{\"token\": \"T\", \"read_only\": false}` (204); a token of another project is refused"},
	{"POST /tokens/revoke", "take a token of the default project away, `{\"token\": \"T\"}` (204): from now on it gets 401 `unauthorized`, as a token deleted in the Console"},
	{"POST /scenarios", "start a scenario"},
	{"GET /rate-limit", "read the bucket: `{remaining, refill}`"},
	{"PUT /rate-limit", "set `{remaining, refill}`"},
	{"GET /fidelity", "the API fakecloud simulates: `description` (the OpenAPI description's version), `description_sha256`, `changelog` (the date of the last changelog entry it follows) and `changelog_entry`, `catalogue` (the day the catalogue was last compared with the public record)"},
	{"GET /realism", "read `{mode, action_retention}`"},
	{"PUT /realism", "set `{mode, action_retention}` (`mode` required: `optimistic` or `pessimistic`)"},
	{"GET /state-file", "what the state file holds: 200, 503 while writes fail, 404 without `--state-file`; `changes` (acknowledged since the start), `saved_changes` (the file holds every change up to this count) and `saved_as_of` (and every change acknowledged before this moment), `saved_at` and `write_seconds` (when the last write ended, how long it took), `unsaved`, `failures`, `last_error` and `failing_since`"},
	{"POST /reset", "`{\"to\": \"empty\"}` or `{\"to\": \"seed\"}` (the last seeded world)"},
	{"POST /seed", "replace the world with a [seed world](seed-worlds.md)"},
	{"GET /state", "export the whole world (a snapshot; running actions, locks and ID counters included)"},
	{"PUT /state", "import a snapshot"},
	{"GET /journal", "recent requests: `method`, `path`, `template`, `status`, `user_agent`, `correlation_id`, `duration`, `fault` (the rule that applied), `actions` (the commands of the actions it started), `truncated` (the fields cut to their limit: `method` 16 bytes, `path` 1,024, `user_agent` 256, `correlation_id` 128; each keeps its start); filters `method`, `template`, `path` (prefix), `status`, `since` (sequence number), `limit`"},
	{"DELETE /journal", "clear the journal"},
	{"GET /counters", "request counts by method, route and status; a method other than GET, HEAD, POST, PUT, PATCH, DELETE and OPTIONS counts as `OTHER`, and a path no route serves (an unknown action among them) as the route `unmatched`"},
	{"DELETE /counters", "reset the counters"},
	{"GET /projects", "the projects' names, the default project first (`--project`); every other route takes `?project=NAME` to inspect or change that project, the default one when left out"},
	{"GET /robot/limits", "the Robot webservice's spent limits (`usage`: `user`, `endpoint`, `used`, `limit`, `interval`) and blocked client IPs (`blocked`: `ip`, `until`)"},
	{"DELETE /robot/limits", "forget the Robot webservice's limits and blocks"},
}
