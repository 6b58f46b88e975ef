package robot

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// newClock is the test kit's clock, standing at the tests' day.
func newClock() *fakecloudtest.Clock {
	return fakecloudtest.NewClock(time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC))
}

func storageBox(id int64) *int64          { return &id }
func servers(s ...Server) func() []Server { return func() []Server { return s } }

var (
	rack = Server{Number: 321, Name: "bm-1", IPv4: "203.0.113.2", IPv6Net: "2a01:4f8:111:4221::", Product: "AX41-NVMe",
		DC: "FSN1-DC14", Traffic: "unlimited", Status: StatusReady, PaidUntil: "2026-05-31", IPs: []string{"203.0.113.2"},
		Subnets: []Subnet{{IP: "2a01:4f8:111:4221::", Mask: "64"}}, Reset: true, LinkedStorageBox: storageBox(7), OperatingStatus: Running}
	tower = Server{Number: 322, Name: "tower", IPv4: "203.0.113.3", Product: "EX40", DC: "NBG1-DC3", Traffic: "20 TB",
		Status: StatusInProcess, Cancelled: true, PaidUntil: "2026-05-31", IPs: []string{"203.0.113.3"}, Reset: true, OperatingStatus: NotSupported}
	noReset = Server{Number: 323, Name: "old", IPv4: "203.0.113.4", Product: "DS 3000", DC: "HEL1-DC2", Traffic: "5 TB",
		Status: StatusReady, PaidUntil: "2026-05-31", OperatingStatus: Running}
)

// do sends a request as the default user from addr, or with the given
// credentials when user is not empty ("-" sends none).
func do(t *testing.T, h http.Handler, method, path, addr, user, password string) (int, map[string]any, []byte) {
	t.Helper()
	r := httptest.NewRequest(method, path, nil)
	r.RemoteAddr = addr + ":40000"
	switch user {
	case "":
		r.SetBasicAuth(DefaultUser, DefaultPassword)
	case "-":
	default:
		r.SetBasicAuth(user, password)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var body map[string]any
	_ = json.Unmarshal(w.Body.Bytes(), &body)
	return w.Code, body, w.Body.Bytes()
}

func get(t *testing.T, h http.Handler, path string) (int, map[string]any, []byte) {
	return do(t, h, "GET", path, "192.0.2.1", "", "")
}

// sameJSON compares a body with the JSON it should be, ignoring spacing.
func sameJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("body %q: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(w, g); d != "" {
		t.Errorf("body (-want +got):\n%s", d)
	}
}

// TestWireFormat pins each endpoint's shape: wrappers, the listing's
// fields, the single server's extra fields, null subnets, and the reset
// options with operating_status only for one server.
func TestWireFormat(t *testing.T) {
	h := New(Options{Servers: servers(rack, tower, noReset)})
	tests := []struct{ name, path, want string }{
		{"list", "/server", `[
			{"server":{"server_ip":"203.0.113.2","server_ipv6_net":"2a01:4f8:111:4221::","server_number":321,"server_name":"bm-1",
				"product":"AX41-NVMe","dc":"FSN1-DC14","traffic":"unlimited","status":"ready","cancelled":false,"paid_until":"2026-05-31",
				"ip":["203.0.113.2"],"subnet":[{"ip":"2a01:4f8:111:4221::","mask":"64"}]}},
			{"server":{"server_ip":"203.0.113.3","server_ipv6_net":"","server_number":322,"server_name":"tower","product":"EX40",
				"dc":"NBG1-DC3","traffic":"20 TB","status":"in process","cancelled":true,"paid_until":"2026-05-31","ip":["203.0.113.3"],"subnet":null}},
			{"server":{"server_ip":"203.0.113.4","server_ipv6_net":"","server_number":323,"server_name":"old","product":"DS 3000",
				"dc":"HEL1-DC2","traffic":"5 TB","status":"ready","cancelled":false,"paid_until":"2026-05-31","ip":[],"subnet":null}}]`},
		{"one server", "/server/321", `{"server":{"server_ip":"203.0.113.2","server_ipv6_net":"2a01:4f8:111:4221::","server_number":321,
			"server_name":"bm-1","product":"AX41-NVMe","dc":"FSN1-DC14","traffic":"unlimited","status":"ready","cancelled":false,
			"paid_until":"2026-05-31","ip":["203.0.113.2"],"subnet":[{"ip":"2a01:4f8:111:4221::","mask":"64"}],
			"reset":true,"rescue":true,"vnc":true,"windows":false,"plesk":false,"cpanel":false,"wol":true,"hot_swap":false,"linked_storagebox":7}}`},
		{"server without storage box", "/server/323", `{"server":{"server_ip":"203.0.113.4","server_ipv6_net":"","server_number":323,
			"server_name":"old","product":"DS 3000","dc":"HEL1-DC2","traffic":"5 TB","status":"ready","cancelled":false,
			"paid_until":"2026-05-31","ip":[],"subnet":null,
			"reset":false,"rescue":true,"vnc":true,"windows":false,"plesk":false,"cpanel":false,"wol":true,"hot_swap":false,"linked_storagebox":null}}`},
		{"resets", "/reset", `[
			{"reset":{"server_ip":"203.0.113.2","server_ipv6_net":"2a01:4f8:111:4221::","server_number":321,"type":["sw","hw","man","power","power_long"]}},
			{"reset":{"server_ip":"203.0.113.3","server_ipv6_net":"","server_number":322,"type":["sw","hw","man"]}}]`},
		{"reset", "/reset/321", `{"reset":{"server_ip":"203.0.113.2","server_ipv6_net":"2a01:4f8:111:4221::","server_number":321,
			"type":["sw","hw","man","power","power_long"],"operating_status":"running"}}`},
		{"reset of a tower server", "/reset/322", `{"reset":{"server_ip":"203.0.113.3","server_ipv6_net":"","server_number":322,
			"type":["sw","hw","man"],"operating_status":"not supported"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, _, body := get(t, h, tt.path)
			if status != http.StatusOK {
				t.Fatalf("status %d: %s", status, body)
			}
			sameJSON(t, body, tt.want)
		})
	}
}

// TestErrors pins the error envelope of every refusal the endpoints make.
func TestErrors(t *testing.T) {
	full := New(Options{Servers: servers(rack, noReset)})
	empty := New(Options{})
	tests := []struct {
		name       string
		h          http.Handler
		method     string
		path, user string
		want       string
	}{
		{"no servers", empty, "GET", "/server", "", `{"error":{"status":404,"code":"SERVER_NOT_FOUND","message":"server not found"}}`},
		{"no resets", empty, "GET", "/reset", "", `{"error":{"status":404,"code":"SERVER_NOT_FOUND","message":"server not found"}}`},
		{"unknown number", full, "GET", "/server/999", "", `{"error":{"status":404,"code":"SERVER_NOT_FOUND","message":"server not found"}}`},
		{"unknown reset", full, "GET", "/reset/999", "", `{"error":{"status":404,"code":"SERVER_NOT_FOUND","message":"server not found"}}`},
		{"no reset", full, "GET", "/reset/323", "", `{"error":{"status":404,"code":"RESET_NOT_AVAILABLE","message":"reset is not available for this server"}}`},
		{"not a number", full, "GET", "/server/abc", "", `{"error":{"status":400,"code":"INVALID_INPUT","message":"invalid input","missing":null,"invalid":["server-number"]}}`},
		{"negative", full, "GET", "/reset/-1", "", `{"error":{"status":400,"code":"INVALID_INPUT","message":"invalid input","missing":null,"invalid":["server-number"]}}`},
		{"too large", full, "GET", "/server/99999999999999999999", "", `{"error":{"status":400,"code":"INVALID_INPUT","message":"invalid input","missing":null,"invalid":["server-number"]}}`},
		{"unknown path", full, "GET", "/servers", "", `{"error":{"status":404,"code":"NOT_FOUND","message":"not found: /servers"}}`},
		{"wrong method", full, "DELETE", "/server/321", "", `{"error":{"status":405,"code":"METHOD_NOT_ALLOWED","message":"method DELETE is not allowed on /server/321"}}`},
		{"wrong password", full, "GET", "/server", "bad", `{"error":{"status":401,"code":"UNAUTHORIZED","message":"unauthorized"}}`},
		{"no credentials", full, "GET", "/server", "-", `{"error":{"status":401,"code":"UNAUTHORIZED","message":"unauthorized"}}`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Each from its own address, so failed logins block nobody.
			_, _, body := do(t, tt.h, tt.method, tt.path, "192.0.2."+strconv.Itoa(i+1), tt.user, "wrong")
			sameJSON(t, body, tt.want)
		})
	}
}
