package ccm

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientset "k8s.io/client-go/kubernetes"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
)

// serviceListTimeout bounds the listing of the Services that tells
// whether a UID is one's.
const serviceListTimeout = 30 * time.Second

// lookupServices lets the load balancers learn whether a Service has a
// UID (loadbalancer.ServiceUIDs), so that one labelled for a Service that
// no longer exists is adopted by name.
func (c *Cloud) lookupServices(builder cloudprovider.ControllerClientBuilder) {
	client, err := builder.Client("hcloud-service-uids")
	if err != nil {
		klog.ErrorS(err, "No Kubernetes client to list Services; a load balancer labelled for another Service is never adopted")
		return
	}
	c.lbs.SetServiceUIDs(serviceUIDs(client))
}

// serviceUIDs lists the Services, 500 a page, from etcd rather than the
// apiserver's cache: a Service created a moment ago is found. It is asked
// only when a name is taken by a load balancer labelled for another UID.
func serviceUIDs(kube clientset.Interface) loadbalancer.ServiceUIDs {
	return func(ctx context.Context, uid string) (bool, error) {
		ctx, cancel := context.WithTimeout(ctx, serviceListTimeout)
		defer cancel()
		opts := metav1.ListOptions{Limit: 500}
		for {
			page, err := kube.CoreV1().Services(metav1.NamespaceAll).List(ctx, opts)
			if err != nil {
				return false, fmt.Errorf("listing the Services: %w", err)
			}
			for _, s := range page.Items {
				if string(s.UID) == uid {
					return true, nil
				}
			}
			if page.Continue == "" {
				return false, nil
			}
			opts.Continue = page.Continue
		}
	}
}
