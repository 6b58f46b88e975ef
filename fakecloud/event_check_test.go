package fakecloud

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
)

// TestEventsJudgedAlike: an event a scenario step would schedule is
// refused when loaded exactly as POST /_fakecloud/events refuses it,
// naming the same field, and a good one is accepted by both.
func TestEventsJudgedAlike(t *testing.T) {
	f := newFixture(t, Options{})
	for _, c := range []struct{ event, field string }{
		{`{type: delete_server}`, "server"},
		{`{type: delete_server, server: 1, health: healthy}`, "health"},
		{`{type: power_off_server, server: 1, server_name: a}`, "server_name"},
		{`{type: set_target_health, load_balancer: 1, server: 1, health: sick}`, "health"},
		{`{type: set_target_health, load_balancer: 1, health: healthy}`, "server"},
		{`{type: set_target_health, load_balancer: 1, ip: "x", health: healthy}`, "ip"},
		{`{type: lock, resource: storage_box, id: 1, for: 1m}`, "resource"},
		{`{type: lock, resource: network, for: 1m}`, "id"},
		{`{type: lock, resource: network, id: 1}`, "for"},
		{`{type: set_server_ip, server: 1, ip: "2001:db8::1"}`, "ip"},
		{`{type: set_server_ip, server: 1, ip: 198.18.9.9, listen_port: 80}`, "listen_port"},
		{`{type: set_server_ip, server: 1, ip: 10.0.0.9}`, "ip"},
		{`{type: set_server_ip, server: 1, ip: 127.0.0.1}`, "ip"},
		{`{type: add_dedicated_server, dedicated_server: {server_name: x, server_ip: 127.0.0.1}}`, "dedicated_server.server_ip"},
		{`{type: add_dedicated_server, dedicated_server: {server_name: x, dc: fsn1}}`, "dedicated_server.dc"},
		{`{type: add_dedicated_server, dedicated_server: {server_name: x, server_ip: 10.0.0.9}}`, "dedicated_server.server_ip"},
		{`{type: add_dedicated_server, dedicated_server: {server_name: x, server_ip: 198.18.0.9}}`, "dedicated_server.server_ip"},
		{`{type: add_dedicated_server, dedicated_server: {server_name: x, server_number: 1000000000}}`, "dedicated_server.server_number"},
		{`{type: explode}`, "type"},
	} {
		sc, err := ParseScenario([]byte("steps:\n  - event: " + c.event + "\n"))
		if err == nil {
			err = f.fc.LoadScenario(sc)
		}
		if err == nil || !strings.Contains(err.Error(), c.field+":") {
			t.Errorf("scenario step %s: %v, want an error naming %s", c.event, err, c.field)
		}
		var env wire.Envelope
		status := f.admin(t, "POST", "/events", c.event, &env)
		if status != http.StatusUnprocessableEntity || !strings.Contains(env.Error.Message, "'"+c.field+"'") {
			t.Errorf("POST /_fakecloud/events %s: %d %+v, want 422 naming %s", c.event, status, env, c.field)
		}
	}
	sc, err := ParseScenario([]byte("steps:\n  - at: 1h\n    event: {type: power_off_server, server_name: later}\n"))
	if err == nil {
		err = f.fc.LoadScenario(sc)
	}
	if err != nil {
		t.Errorf("a step naming a server created later was refused: %v", err)
	}
}
