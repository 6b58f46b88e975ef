package ccm

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	cloudprovider "k8s.io/cloud-provider"
	servicecontroller "k8s.io/cloud-provider/controllers/service"
	"k8s.io/component-base/featuregate"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
)

// viewedAnnotation marks a Service as serviceView made it, with its own
// class ("" for none), so the view is taken once.
const viewedAnnotation = "internal.hcloud-ccm/load-balancer-class"

// notServed is the class a Service without one appears with when
// Services without a class are not served: the upstream controller leaves
// every Service with a class alone.
const notServed = "internal.hcloud-ccm/not-served"

// serviceView shows the upstream service controller, which serves only
// Services without a loadBalancerClass, the Services class serves: those
// of its class appear without one, and those without one, unless served
// too, appear with a class of no one's. The rest are left as they are.
// The controller patches only the status and the finalizer, computed
// between two copies of the view, so the view never reaches the cluster.
func serviceView(class loadbalancer.Class) cache.TransformFunc {
	class = class.OrDefault()
	return func(obj any) (any, error) {
		svc, ok := obj.(*corev1.Service)
		if !ok {
			return obj, nil
		}
		if _, viewed := svc.Annotations[viewedAnnotation]; viewed {
			return obj, nil
		}
		own := ""
		if svc.Spec.LoadBalancerClass != nil {
			own = *svc.Spec.LoadBalancerClass
		}
		switch {
		case own != "" && own == class.Name:
			svc.Spec.LoadBalancerClass = nil
		case own == "" && !class.WithoutClass:
			svc.Spec.LoadBalancerClass = new(notServed)
		default:
			return obj, nil
		}
		if svc.Annotations == nil {
			svc.Annotations = map[string]string{}
		}
		svc.Annotations[viewedAnnotation] = own
		return svc, nil
	}
}

// NewServiceController is the upstream service controller over the
// Services class serves (serviceView), from an informer of its own, which
// the returned factory starts once the controller is made.
func NewServiceController(cloud cloudprovider.Interface, kube clientset.Interface, nodes coreinformers.NodeInformer,
	clusterName string, resync time.Duration, gates featuregate.FeatureGate, class loadbalancer.Class,
) (*servicecontroller.Controller, informers.SharedInformerFactory, error) {
	factory := informers.NewSharedInformerFactoryWithOptions(kube, resync, informers.WithTransform(serviceView(class)))
	sc, err := servicecontroller.New(cloud, kube, factory.Core().V1().Services(), nodes, clusterName, gates)
	return sc, factory, err
}
