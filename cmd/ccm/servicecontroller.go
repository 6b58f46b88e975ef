package main

import (
	"context"
	"maps"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/app"
	"k8s.io/cloud-provider/app/config"
	"k8s.io/cloud-provider/names"
	genericcontrollermanager "k8s.io/controller-manager/app"
	"k8s.io/controller-manager/controller"
	"k8s.io/klog/v2"

	"github.com/hcloudlab/hcloud-ccm/ccm"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
)

// initFuncConstructors are upstream's controllers with the service
// controller started by startServiceController.
func initFuncConstructors() map[string]app.ControllerInitFuncConstructor {
	inits := maps.Clone(app.DefaultInitFuncConstructors)
	c := inits[names.ServiceLBController]
	c.Constructor = startServiceController
	inits[names.ServiceLBController] = c
	return inits
}

// startServiceController starts upstream's service controller as upstream
// does, but over the Services the configured loadBalancerClass serves
// (ccm.NewServiceController): upstream's serves only those without one.
func startServiceController(initContext app.ControllerInitContext, completed *config.CompletedConfig, cloud cloudprovider.Interface) app.InitFunc {
	return func(ctx context.Context, cc genericcontrollermanager.ControllerContext) (controller.Interface, bool, error) {
		class := loadbalancer.Class{}.OrDefault()
		if c, ok := cloud.(interface{ LoadBalancerClass() loadbalancer.Class }); ok {
			class = c.LoadBalancerClass()
		}
		sc, services, err := ccm.NewServiceController(cloud, completed.ClientBuilder.ClientOrDie(initContext.ClientName),
			completed.SharedInformers.Core().V1().Nodes(), completed.ComponentConfig.KubeCloudShared.ClusterName,
			completed.ComponentConfig.Generic.MinResyncPeriod.Duration, utilfeature.DefaultFeatureGate, class)
		if err != nil {
			// As upstream: without load balancers (HCLOUD_LOAD_BALANCERS_ENABLED=false) it is off.
			klog.Errorf("Failed to start service controller: %v", err)
			return nil, false, nil
		}
		services.Start(ctx.Done())
		go sc.Run(ctx, int(completed.ComponentConfig.ServiceController.ConcurrentServiceSyncs), cc.ControllerManagerMetrics)
		return nil, true, nil
	}
}
