package loadbalancer

import (
	"errors"
	"fmt"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

// unsupported reports annotations of the official CCM this one does not act on.
func (l *Manager) unsupported(svc *corev1.Service) {
	for _, name := range []annotation.Key{annotation.PublicNetIPv4, annotation.PublicNetIPv6} {
		if v, ok := svc.Annotations[string(name)]; ok {
			l.event(svc, corev1.EventTypeWarning, eventBadAnnotation, fmt.Sprintf(
				"annotation %s=%q is not supported by this CCM and is ignored: the load balancer gets its own addresses", name, v))
		}
	}
}

func (l *Manager) rejectedTarget(svc *corev1.Service, st lbStep, err error) {
	reason := eventTargetRejected
	if hcloud.IsError(err, hcloud.ErrorCodeResourceLimitExceeded) {
		reason = eventMaxTargets
	}
	l.event(svc, corev1.EventTypeWarning, reason, fmt.Sprintf("%s was not added as a target: %v", st.Target, err))
}

// badConfig reports each bad annotation as a Warning event on the Service.
func (l *Manager) badConfig(svc *corev1.Service, err error) error {
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	for _, e := range errs {
		var ae *annotation.Error
		if errors.As(e, &ae) {
			l.event(svc, corev1.EventTypeWarning, eventBadAnnotation, e.Error())
		}
	}
	return err
}

func (l *Manager) notify(svc *corev1.Service, notices []lbNotice) {
	for _, n := range notices {
		var obj runtime.Object = svc
		if n.Node != nil {
			obj = n.Node
		}
		l.event(obj, corev1.EventTypeWarning, n.Reason, n.Message)
	}
}

func (l *Manager) event(obj runtime.Object, eventType, reason, msg string) {
	if l.recorder != nil {
		l.recorder.Event(obj, eventType, reason, msg)
	}
}

// Event reasons for load balancers.
const (
	eventPortSkipped           = "PortNotSupported"
	eventNodeSkipped           = "NodeNotTargeted"
	eventMaxTargets            = "MaxTargetsReached"
	eventBadAnnotation         = "InvalidAnnotation"
	eventTypeDowngrade         = "TypeNotDowngraded"
	eventLocationKept          = "LocationNotChanged"
	eventPrivateIPKept         = "PrivateIPNotChanged"
	eventTargetRejected        = "TargetRejected"
	eventLBProtected           = "LoadBalancerProtected"
	eventLBActionFailed        = "LoadBalancerActionFailed"
	eventLBSyncFailed          = "SyncLoadBalancerFailed"
	eventCertificateNotDeleted = "CertificateNotDeleted"
	eventLBRetained            = "LoadBalancerRetained"
	eventLBNotFound            = "LoadBalancerNotFound"
)
