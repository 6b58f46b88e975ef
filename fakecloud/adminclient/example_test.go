package adminclient_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/adminclient"
)

// Example scripts an in-process fakecloud: the next two server listings
// fail with 503.
func Example() {
	srv := httptest.NewServer(fakecloud.New(fakecloud.Options{}))
	defer srv.Close()

	admin := adminclient.New(srv.URL, "", srv.Client())
	rule, err := admin.AddFault(context.Background(), fakecloud.Rule{Method: "GET", Path: "/servers", Status: 503, Count: 2})
	if err != nil {
		panic(err)
	}
	fmt.Println(rule.ID, rule.Status, rule.Count)
	// Output: 1 503 2
}
