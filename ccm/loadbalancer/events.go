package loadbalancer

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

// unsupported reports what a Service asks that this CCM cannot do:
// source ranges, which no Hetzner load balancer enforces.
func (l *Manager) unsupported(svc *corev1.Service) {
	if msg := SourceRangesWarning(svc); msg != "" {
		l.event(svc, corev1.EventTypeWarning, eventSourceRanges, msg)
	}
}

// sourceRangesAnnotation is the annotation Kubernetes reads for source
// ranges when spec.loadBalancerSourceRanges is empty.
const sourceRangesAnnotation = "service.beta.kubernetes.io/load-balancer-source-ranges"

// SourceRangesWarning says that a Service's source ranges
// (spec.loadBalancerSourceRanges, or the annotation Kubernetes reads when
// the field is empty) are not enforced, naming them; "" for a Service that
// asks none. Hetzner load balancers cannot filter clients by address
// (official CCM issues 218 and 286), so the official CCM ignores the
// field without a word and the operator believes the load balancer is
// restricted when it is open to every address.
func SourceRangesWarning(svc *corev1.Service) string {
	field, ranges := "spec.loadBalancerSourceRanges", svc.Spec.LoadBalancerSourceRanges
	if len(ranges) == 0 {
		if v := strings.TrimSpace(svc.Annotations[sourceRangesAnnotation]); v != "" {
			field, ranges = "annotation "+sourceRangesAnnotation, strings.Split(v, ",")
		}
	}
	if len(ranges) == 0 {
		return ""
	}
	return fmt.Sprintf("%s (%s) is not enforced: Hetzner load balancers cannot filter clients by address, so this load balancer accepts every address; "+
		"restrict access with a firewall on the Nodes or a NetworkPolicy", field, strings.Join(ranges, ", "))
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
		var se *SecretError
		switch {
		case errors.As(e, &ae):
			l.event(svc, corev1.EventTypeWarning, eventBadAnnotation, e.Error())
		case errors.As(e, &se):
			l.event(svc, corev1.EventTypeWarning, eventBadCertSecret, e.Error()+": nothing is uploaded from it")
		case errors.As(e, new(*tooManyPorts)):
			l.event(svc, corev1.EventTypeWarning, eventTooManyPorts, e.Error())
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
	eventBadCertSecret         = "InvalidCertificateSecret"
	eventTooManyPorts          = "TooManyPorts"
	eventSourceRanges          = "SourceRangesNotEnforced"
	eventTypeDowngrade         = "TypeNotDowngraded"
	eventLocationKept          = "LocationNotChanged"
	eventPrivateIPKept         = "PrivateIPNotChanged"
	eventPublicNetKept         = "PublicNetNotChanged"
	eventTargetRejected        = "TargetRejected"
	eventLBProtected           = "LoadBalancerProtected"
	eventLBActionFailed        = "LoadBalancerActionFailed"
	eventLBSyncFailed          = "SyncLoadBalancerFailed"
	eventCertificateNotDeleted = "CertificateNotDeleted"
	eventLBRetained            = "LoadBalancerRetained"
	eventLBDeleteUnconfirmed   = "LoadBalancerDeletionUnconfirmed"
	eventLBNotFound            = "LoadBalancerNotFound"
	eventTypeUnconfigured      = "LoadBalancerTypeUnconfigured"
	eventTypeDeprecated        = "LoadBalancerTypeDeprecated"
	eventTypeUnavailable       = "LoadBalancerTypeUnavailable"
)
