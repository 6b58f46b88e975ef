package adminclient_test

import (
	"net/http/httptest"
	"testing"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/adminclient"
)

// start serves a fakecloud in process and returns it with a client of its
// admin API.
func start(t *testing.T, opts fakecloud.Options) (*fakecloud.Server, *adminclient.Client) {
	t.Helper()
	fc := fakecloud.New(opts)
	srv := httptest.NewServer(fc)
	t.Cleanup(srv.Close)
	return fc, adminclient.New(srv.URL, opts.AdminToken, srv.Client())
}

func TestNewTakesTheAPIBase(t *testing.T) {
	fc := fakecloud.New(fakecloud.Options{})
	srv := httptest.NewServer(fc)
	defer srv.Close()
	for _, base := range []string{srv.URL, srv.URL + "/", srv.URL + "/v1", srv.URL + "/v1/"} {
		t.Run(base, func(t *testing.T) {
			if _, err := adminclient.New(base, "", nil).Counters(t.Context()); err != nil {
				t.Errorf("base %s: %v", base, err)
			}
		})
	}
}

func TestAdminToken(t *testing.T) {
	fc, c := start(t, fakecloud.Options{AdminToken: "sekrit"})
	if err := c.ClearFaults(t.Context()); err != nil {
		t.Fatalf("with the token: %v", err)
	}
	srv := httptest.NewServer(fc)
	defer srv.Close()
	err := adminclient.New(srv.URL, "wrong", nil).ClearFaults(t.Context())
	if !adminclient.IsError(err, "unauthorized") {
		t.Errorf("a wrong token: %v, want unauthorized", err)
	}
}
