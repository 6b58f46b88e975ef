package ccm_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// Example builds the provider from the official CCM's environment
// variables, against fakecloud, and asks it what the cloud-node
// controller asks when a Node joins.
func Example() {
	fc := fakecloud.New(fakecloud.Options{})
	world, err := fakecloud.ParseWorld([]byte("servers: [{name: worker-1, server_type: cx33, location: fsn1}]"))
	if err != nil {
		panic(err)
	}
	if err := fc.Seed(world); err != nil {
		panic(err)
	}
	srv := httptest.NewServer(fc)
	defer srv.Close()

	env := map[string]string{
		"HCLOUD_TOKEN":           fakecloud.DefaultToken,
		"HCLOUD_ENDPOINT":        srv.URL + "/v1",
		"HCLOUD_METRICS_ADDRESS": "127.0.0.1:0",
	}
	cfg, err := ccm.LoadConfig(func(name string) string { return env[name] }, nil)
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cloud, err := ccm.New(ctx, cfg)
	if err != nil {
		panic(err)
	}
	instances, _ := cloud.InstancesV2()
	md, err := instances.InstanceMetadata(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-1"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(md.ProviderID, md.InstanceType, md.Region, md.Zone)
	// Output: hcloud://100002 cx33 fsn1 fsn1-dc14
}
