package fakecloud

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"
)

// TestRejectedRequestsLogLimited: within one window a client's rejected
// requests (401, 404) are logged 20 at most, another client's as its own,
// a served request always; when the window ends, one line per client
// counts what was left out. Past 1,024 clients in a window, the rest
// share one allowance.
func TestRejectedRequestsLogLimited(t *testing.T) {
	var buf bytes.Buffer
	fc := New(Options{Logger: slog.New(slog.NewJSONHandler(&buf, nil))})
	fc.rejected.window = time.Hour // one window, until the test ends it
	for range 500 {
		answerFrom(t, fc, "192.0.2.1:1000", "GET", "/v1/servers", nil, "Authorization", "Bearer bad")
	}
	for i := range 5 {
		answerFrom(t, fc, "192.0.2.2:1000", "GET", fmt.Sprintf("/v1/made-up-%d", i), nil)
	}
	for i := range 2000 {
		answerFrom(t, fc, fmt.Sprintf("198.51.%d.%d:1000", i/250, i%250), "GET", "/v1/servers", nil, "Authorization", "")
	}
	answerFrom(t, fc, "192.0.2.3:1000", "GET", "/v1/servers", nil)
	fc.rejected.mu.Lock()
	fc.rejected.window = 0 // the window is over
	fc.rejected.mu.Unlock()
	answerFrom(t, fc, "192.0.2.3:1000", "GET", "/v1/servers", nil)

	lines := map[int]int{}       // request lines by status
	left := map[string]float64{} // counts left out, by client
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		switch line["msg"] {
		case "request":
			lines[int(line["status"].(float64))]++
		case "rejected requests not logged":
			left[line["client"].(string)] += line["count"].(float64)
		}
	}
	// The first two clients and 1,022 of the 2,000 fill the 1,024.
	if want := 20 + 1022 + 20; lines[401] != want || lines[404] != 5 || lines[200] != 2 {
		t.Errorf("request lines by status %v, want 401: %d (20 + one for each client up to 1,024 + 20 for the rest), 404: 5, 200: 2", lines, want)
	}
	want := map[string]float64{"192.0.2.1": 480, otherClients: 2000 - 1022 - 20}
	if fmt.Sprint(left) != fmt.Sprint(want) {
		t.Errorf("counts left out %v, want %v", left, want)
	}
}
