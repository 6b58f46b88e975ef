package fakecloud_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// Example starts fakecloud in a test and points hcloud-go at it.
func Example() {
	fc := fakecloud.New(fakecloud.Options{})
	srv := httptest.NewServer(fc)
	defer srv.Close()

	client := hcloud.NewClient(
		hcloud.WithEndpoint(srv.URL+"/v1"),
		hcloud.WithToken(fakecloud.DefaultToken),
		hcloud.WithPollOpts(hcloud.PollOpts{BackoffFunc: hcloud.ConstantBackoff(0)}),
	)
	ctx := context.Background()
	res, _, err := client.Server.Create(ctx, hcloud.ServerCreateOpts{
		Name:       "node-1",
		ServerType: &hcloud.ServerType{Name: "cx22"},
		Image:      &hcloud.Image{Name: "ubuntu-24.04"},
	})
	if err != nil {
		panic(err)
	}
	if err := client.Action.WaitFor(ctx, res.Action); err != nil {
		panic(err)
	}
	server, _, _ := client.Server.GetByName(ctx, "node-1")
	fmt.Println(server.Name, server.Status, server.PublicNet.IPv4.IP)
	// Output: node-1 running 198.18.0.1
}
