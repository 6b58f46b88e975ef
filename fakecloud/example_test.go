package fakecloud_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// Example starts fakecloud and points hcloud-go at it. In a test,
// fakecloudtest.Serve(t, fc) serves it for the test's life.
func Example() {
	fc := fakecloud.New(fakecloud.Options{})
	srv := httptest.NewServer(fc)
	defer srv.Close()

	// An hcloud-go client that neither sleeps between polls nor backs off.
	client := fakecloudtest.Client(srv.URL, fakecloud.DefaultToken)
	ctx := context.Background()
	res, _, err := client.Server.Create(ctx, hcloud.ServerCreateOpts{
		Name:       "node-1",
		ServerType: &hcloud.ServerType{Name: "cx23"},
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

// Example_scriptedFailure makes the API fail on purpose: the next server
// create answers 500 server_error, which hcloud-go does not retry, and the
// counters show what the client sent.
func Example_scriptedFailure() {
	fc := fakecloud.New(fakecloud.Options{})
	srv := httptest.NewServer(fc)
	defer srv.Close()
	client := fakecloudtest.Client(srv.URL, fakecloud.DefaultToken)

	if _, err := fc.AddFault(fakecloud.Rule{Method: "POST", Path: "/servers", Status: 500, Count: 1}); err != nil {
		panic(err)
	}
	opts := hcloud.ServerCreateOpts{Name: "node-1", ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{Name: "ubuntu-24.04"}}
	_, _, err := client.Server.Create(context.Background(), opts)
	fmt.Println(hcloud.IsError(err, hcloud.ErrorCodeServerError))
	_, _, err = client.Server.Create(context.Background(), opts)
	fmt.Println(err, fc.Requests("POST", "/servers"))
	// Output:
	// true
	// <nil> 2
}

// Example_seed plants a world of named resources and reads it back.
func Example_seed() {
	fc := fakecloud.New(fakecloud.Options{})
	world, err := fakecloud.ParseWorld([]byte(`
networks:
  - {name: cluster, ip_range: 10.0.0.0/16, subnets: [{type: cloud, ip_range: 10.0.0.0/24, network_zone: eu-central}]}
servers:
  - {name: worker-1, networks: [{network: cluster, ip: 10.0.0.3}]}
`))
	if err != nil {
		panic(err)
	}
	if err := fc.Seed(world); err != nil {
		panic(err)
	}
	srv := httptest.NewServer(fc)
	defer srv.Close()
	client := fakecloudtest.Client(srv.URL, fakecloud.DefaultToken)
	server, _, err := client.Server.GetByName(context.Background(), "worker-1")
	if err != nil {
		panic(err)
	}
	fmt.Println(server.Name, server.Status, server.PrivateNet[0].IP)
	// Output: worker-1 running 10.0.0.3
}

// Example_event changes the world behind the clients' back: the server
// is powered off out of band, as a shutdown from inside it would.
func Example_event() {
	fc := fakecloud.New(fakecloud.Options{})
	world, _ := fakecloud.ParseWorld([]byte("servers: [{name: worker-1}]"))
	if err := fc.Seed(world); err != nil {
		panic(err)
	}
	if err := fc.Apply(fakecloud.Event{Type: "power_off_server", ServerName: "worker-1"}); err != nil {
		panic(err)
	}
	srv := httptest.NewServer(fc)
	defer srv.Close()
	client := fakecloudtest.Client(srv.URL, fakecloud.DefaultToken)
	server, _, _ := client.Server.GetByName(context.Background(), "worker-1")
	fmt.Println(server.Status)
	// Output: off
}
