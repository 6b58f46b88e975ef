package normalise

import (
	"encoding/json"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decode reads the JSON a test expects, with numbers as the Normaliser
// gives them back.
func decode(t *testing.T, s string) any {
	t.Helper()
	if s == "" {
		return nil
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad expectation %s: %v", s, err)
	}
	return roundTrip(t, v)
}

// roundTrip turns a normalised value into what encoding/json decodes from
// its encoding, so both sides compare alike (json.Number and float64).
func roundTrip(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestJSON(t *testing.T) {
	tests := []struct {
		name   string
		keep   []string
		bodies []string // normalised by one Normaliser, in order
		want   []string
	}{{
		name: "a server's ID is one placeholder in the server, the action's resources and the network's servers",
		bodies: []string{
			`{"server":{"id":42,"name":"parity-r7-life","public_net":{"ipv4":{"id":9,"ip":"198.18.0.1"}}},"action":{"id":42,"command":"create_server","status":"success","progress":100,"resources":[{"id":42,"type":"server"}]}}`,
			`{"network":{"id":4711,"servers":[42]}}`,
		},
		want: []string{
			`{"server":{"id":"<server:1>","name":"parity-<run>-life","public_net":{"ipv4":{"id":"<primary_ip:1>","ip":"<ipv4:1>"}}},"action":{"id":"<action:1>","command":"create_server","status":"success","progress":100,"resources":[{"id":"<server:1>","type":"server"}]}}`,
			`{"network":{"id":"<network:1>","servers":["<server:1>"]}}`,
		},
	}, {
		name:   "an ID of 0 names nothing and stays",
		bodies: []string{`{"load_balancer":{"id":3,"public_net":{"ipv4":{"id":0},"ipv6":{"id":0}}}}`},
		want:   []string{`{"load_balancer":{"id":"<load_balancer:1>","public_net":{"ipv4":{"id":0},"ipv6":{"id":0}}}}`},
	}, {
		name: "placeholders are numbered in order of first appearance, keys sorted",
		bodies: []string{
			`{"b":{"server":{"id":7}},"a":{"server":{"id":8}}}`,
			`{"servers":[{"id":9},{"id":8},{"id":7}]}`,
		},
		want: []string{
			`{"a":{"server":{"id":"<server:1>"}},"b":{"server":{"id":"<server:2>"}}}`,
			`{"servers":[{"id":"<server:3>"},{"id":"<server:1>"},{"id":"<server:2>"}]}`,
		},
	}, {
		name: "an assignee takes its kind from assignee_type",
		bodies: []string{
			`{"server":{"id":5}}`,
			`{"primary_ip":{"id":3,"assignee_id":5,"assignee_type":"server","name":"primary_ip-3"}}`,
		},
		want: []string{
			`{"server":{"id":"<server:1>"}}`,
			`{"primary_ip":{"id":"<primary_ip:1>","assignee_id":"<server:1>","assignee_type":"server","name":"<name:1>"}}`,
		},
	}, {
		name: "times are one placeholder; chosen ranges stay; other addresses and ranges do not",
		keep: []string{"10.0.0.0/16", "10.100.0.0/24", "10.0.1.10"},
		bodies: []string{
			`{"network":{"ip_range":"10.0.0.0/16","created":"2026-01-01T00:00:00Z","routes":[{"destination":"10.100.0.0/24","gateway":"10.0.1.10"}],"subnets":[{"gateway":"10.0.0.1","ip_range":"10.0.1.0/24"}]}}`,
			`{"server":{"public_net":{"ipv6":{"ip":"2001:db8::/64","dns_ptr":[{"ip":"2001:db8::1","dns_ptr":"a.example"}]}},"started":"2026-01-01T00:00:01+00:00"}}`,
		},
		want: []string{
			`{"network":{"ip_range":"10.0.0.0/16","created":"<time>","routes":[{"destination":"10.100.0.0/24","gateway":"10.0.1.10"}],"subnets":[{"gateway":"<ipv4:1>","ip_range":"<cidrv4:1>"}]}}`,
			`{"server":{"public_net":{"ipv6":{"ip":"<cidrv6:1>","dns_ptr":[{"ip":"<ipv6:1>","dns_ptr":"<dns_ptr:1>"}]}},"started":"<time>"}}`,
		},
	}, {
		name: "the catalogue keeps its shape; a change of type is another placeholder",
		bodies: []string{
			`{"name":"parity-r7-life","server_type":"cx23","image":"ubuntu-24.04","location":"fsn1"}`,
			`{"server":{"server_type":{"id":104,"name":"cx23","prices":[{"location":"fsn1","price_hourly":{"net":"0.0064"}},{"location":"nbg1"}],"deprecation":null},"included_traffic":21990232555520,"primary_disk_size":40}}`,
			`{"server_type":"cx33"}`,
		},
		want: []string{
			`{"name":"parity-<run>-life","server_type":"<server_type:1>","image":"<image:1>","location":"<location:1>"}`,
			`{"server":{"server_type":{"id":"<number>","name":"<server_type:1>","prices":[{"location":"<string>","price_hourly":{"net":"<string>"}}],"deprecation":null},"included_traffic":"<number>","primary_disk_size":"<number>"}}`,
			`{"server_type":"<server_type:2>"}`,
		},
	}, {
		name: "passwords and MAC addresses are placeholders; error prose is not compared, its code and fields are",
		bodies: []string{
			`{"root_password":"Zx9fA","server":{"private_net":[{"network":12,"ip":"10.0.1.2","mac_address":"86:00:00:01:02:03","alias_ips":[]}]}}`,
			`{"error":{"code":"invalid_input","message":"invalid input in field 'labels'","details":{"fields":[{"name":"labels","messages":["bad key","too long"]}]}}}`,
		},
		want: []string{
			`{"root_password":"<password:1>","server":{"private_net":[{"network":"<network:1>","ip":"<ipv4:1>","mac_address":"<mac:1>","alias_ips":[]}]}}`,
			`{"error":{"code":"invalid_input","message":"<message>","details":{"fields":[{"name":"labels","messages":["<message>","<message>"]}]}}}`,
		},
	}, {
		name: "a running action's progress is not compared, a finished one's is",
		bodies: []string{
			`{"action":{"id":1,"status":"running","progress":37,"error":null},"next_actions":[{"id":2,"status":"success","progress":100}]}`,
		},
		want: []string{
			`{"action":{"id":"<action:1>","status":"running","progress":"<progress>","error":null},"next_actions":[{"id":"<action:2>","status":"success","progress":100}]}`,
		},
	}, {
		name:   "an empty body is nil and text is noted by its length",
		bodies: []string{``, `not json`},
		want:   []string{``, `"<not JSON: 8 bytes>"`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := New()
			n.Substitute("r7", "<run>")
			n.Keep(tt.keep...)
			for i, body := range tt.bodies {
				got := roundTrip(t, n.JSON([]byte(body)))
				if diff := cmp.Diff(decode(t, tt.want[i]), got); diff != "" {
					t.Errorf("body %d (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

func TestPathAndQuery(t *testing.T) {
	n := New()
	n.Substitute("r7", "<run>")
	body := roundTrip(t, n.JSON([]byte(`{"server":{"id":42}}`)))
	if diff := cmp.Diff(decode(t, `{"server":{"id":"<server:1>"}}`), body); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	tests := []struct {
		name, path string
		query      url.Values
		wantPath   string
		wantQuery  map[string][]string
	}{
		{"an ID after a collection", "/servers/42/actions/poweron", nil, "/servers/<server:1>/actions/poweron", nil},
		{"IDs of two kinds", "/load_balancers/42/actions/7", nil, "/load_balancers/<load_balancer:1>/actions/<action:1>", nil},
		{"no ID", "/servers", url.Values{"label_selector": {"parity.hcloudlab.dev/run=r7"}, "sort": {"id:asc", "name"}},
			"/servers", map[string][]string{"label_selector": {"parity.hcloudlab.dev/run=<run>"}, "sort": {"id:asc", "name"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := n.Path(tt.path); got != tt.wantPath {
				t.Errorf("Path(%q) = %q, want %q", tt.path, got, tt.wantPath)
			}
			if diff := cmp.Diff(tt.wantQuery, n.Query(tt.query)); diff != "" {
				t.Errorf("Query (-want +got):\n%s", diff)
			}
		})
	}
}

func TestJSONUnder(t *testing.T) {
	n := New()
	n.JSON([]byte(`{"action":{"id":5,"resources":[{"id":9,"type":"server"}]}}`))
	got := roundTrip(t, n.JSONUnder("action", []byte(`{"id":5,"status":"success","resources":[{"id":9,"type":"server"}]}`)))
	want := decode(t, `{"id":"<action:1>","status":"success","resources":[{"id":"<server:1>","type":"server"}]}`)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("an action read alone (-want +got):\n%s", diff)
	}
}
