package fakecloud

import (
	"fmt"
	"strings"
)

// classCases are hostile admin requests of the classes issue #38 found
// accepted, each of which must be refused and change nothing: numbers no
// bucket can run with, dedicated servers on addresses no host has or
// another machine holds, and scripting that could never apply (events
// /events refuses, put in a scenario; action faults for commands no
// action has; an after-commit rule on a read).
func classCases() []hostileCase {
	var out []hostileCase
	add := func(why, method, path, body string) {
		out = append(out, hostileCase{why: why, method: method, path: "/_fakecloud" + path, body: []byte(body), invalid: true,
			header: []string{"Authorization", "Bearer " + hostileAdminToken}})
	}
	// An event is refused alike from /events and as a scenario step.
	event := func(why, e string) {
		add(why, "POST", "/events", e)
		add(why+" in a scenario", "POST", "/scenarios", `{"steps":[{"at":"1h","event":`+e+`}]}`)
	}
	for _, v := range []string{"1e300", "1000001", "1.7976931348623157e308"} {
		add("refill "+v, "PUT", "/rate-limit", `{"refill":`+v+`}`)
		add("refill "+v+" in a scenario", "POST", "/scenarios", `{"steps":[{"rate_limit":{"refill":`+v+`}}]}`)
	}
	dedicated := func(fields string) string {
		return `{"type":"add_dedicated_server","dedicated_server":{"server_name":"x"` + fields + `}}`
	}
	for _, a := range []string{"127.0.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "169.254.0.9", "100.64.0.1", "240.0.0.1", "10.0.0.77", "192.168.7.7"} {
		event("dedicated server_ip "+a, dedicated(`,"server_ip":"`+a+`"`))
		event("dedicated ip "+a, dedicated(`,"server_ip":"192.0.2.77","ip":["192.0.2.77","`+a+`"]`))
	}
	for _, a := range []string{"::1", "fe80::", "ff02::", "fd00::"} {
		event("dedicated server_ipv6_net "+a, dedicated(`,"server_ipv6_net":"`+a+`"`))
	}
	for _, n := range []string{"1000000000", "9223372036854775807", "-1"} {
		event("dedicated server_number "+n, dedicated(`,"server_number":`+n))
	}
	event("a dedicated server in the cloud's addresses", dedicated(`,"server_ip":"198.18.0.9"`))
	for _, a := range []string{"10.0.0.99", "127.0.0.1"} {
		event("a cloud server moved onto "+a, fmt.Sprintf(`{"type":"set_server_ip","server_name":"worker-1","ip":"%s"}`, a))
	}
	// Who holds an address is the world's at the moment: refused from
	// /events now, and when a scenario's step happens.
	add("a dedicated server on another's address", "POST", "/events", dedicated(`,"server_ip":"192.0.2.10"`))
	add("a cloud server moved onto a dedicated server's address", "POST", "/events", `{"type":"set_server_ip","server_name":"worker-1","ip":"192.0.2.10"}`)
	for _, cmd := range []string{"attach_network", "poweron", "create-server"} {
		add("action fault for "+cmd, "POST", "/action-faults", `{"command":"`+cmd+`","error_code":"action_failed"}`)
		add("action fault for "+cmd+" in a scenario", "POST", "/scenarios", `{"steps":[{"action_fault":{"command":"`+cmd+`","error_code":"action_failed"}}]}`)
	}
	for _, m := range []string{"GET", "HEAD"} {
		add("after_commit on "+m, "POST", "/faults", `{"method":"`+m+`","path":"/servers","status":504,"after_commit":true}`)
	}
	for i := range out {
		out[i].why = "class: " + strings.TrimSpace(out[i].why)
	}
	return out
}
