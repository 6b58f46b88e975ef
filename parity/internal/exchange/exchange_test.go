package exchange

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRecorder(t *testing.T) {
	date := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Date", date.Format(http.TimeFormat))
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, r.Method+" "+r.URL.Path+" "+string(body))
	}))
	defer srv.Close()
	var rec Recorder
	client := &http.Client{Transport: rec.Wrap(nil, srv.URL+"/v1")}

	tests := []struct {
		name         string
		method, path string
		body         string
		want         Exchange
	}{{
		name: "a GET with a query", method: "GET", path: "/v1/servers?sort=id:asc&sort=name",
		want: Exchange{Method: "GET", Path: "/servers", Query: url.Values{"sort": {"id:asc", "name"}},
			Status: 201, Date: date, ResponseBody: []byte("GET /v1/servers ")},
	}, {
		name: "a POST's body reaches the server and the record", method: "POST", path: "/v1/servers/7/actions/poweron", body: `{"a":1}`,
		want: Exchange{Method: "POST", Path: "/servers/7/actions/poweron", Query: url.Values{}, Body: []byte(`{"a":1}`),
			Status: 201, Date: date, ResponseBody: []byte(`POST /v1/servers/7/actions/poweron {"a":1}`)},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if string(got) != string(tt.want.ResponseBody) {
				t.Errorf("the client read %q, want %q", got, tt.want.ResponseBody)
			}
			if diff := cmp.Diff([]Exchange{tt.want}, rec.Take()); diff != "" {
				t.Errorf("recorded (-want +got):\n%s", diff)
			}
			if left := rec.Take(); len(left) != 0 {
				t.Errorf("Take left %d exchanges behind", len(left))
			}
		})
	}
}

func TestNoAnswerIsNotRecorded(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close() // nothing listens any more
	var rec Recorder
	client := &http.Client{Transport: rec.Wrap(nil, srv.URL)}
	if resp, err := client.Get(srv.URL + "/servers"); err == nil {
		_ = resp.Body.Close()
		t.Fatal("a closed server answered")
	}
	if got := rec.Take(); len(got) != 0 {
		t.Errorf("recorded %d exchanges without an answer", len(got))
	}
}
