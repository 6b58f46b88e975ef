package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
)

// Path is where the webhook is served; the ValidatingWebhookConfiguration
// of deploy/chart calls it.
const Path = "/validate-service"

// Handler judges Services as the load balancer sync would.
type Handler struct {
	lbs         *loadbalancer.Manager // nil: load balancers are off, every Service passes
	cloudChecks bool
}

// New is a Handler for lbs (nil when HCLOUD_LOAD_BALANCERS_ENABLED=false).
// With cloudChecks, the type, location and certificates a Service names
// are also checked against what lbs holds in memory (CheckCached).
func New(lbs *loadbalancer.Manager, cloudChecks bool) *Handler {
	return &Handler{lbs: lbs, cloudChecks: cloudChecks}
}

// Admit answers one AdmissionRequest: CREATE and UPDATE of a Service this
// CCM makes a load balancer for (type LoadBalancer, no loadBalancerClass)
// are refused when they bring a problem the Service did not have before;
// a problem an UPDATE leaves as it was is a warning, so a broken Service
// can still be edited, fixed or have its finalizer removed, as is a
// change to the Primary IPs of an existing load balancer, which keeps its
// addresses. Everything else is allowed.
func (h *Handler) Admit(req *admissionv1.AdmissionRequest) (*admissionv1.AdmissionResponse, error) {
	allow := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	if h.lbs == nil || req.Kind.Group != "" || req.Kind.Kind != "Service" || req.SubResource != "" ||
		(req.Operation != admissionv1.Create && req.Operation != admissionv1.Update) {
		return allow, nil
	}
	svc, err := decode(req.Object.Raw)
	if err != nil {
		return nil, fmt.Errorf("service %s/%s: %w", req.Namespace, req.Name, err)
	}
	if !h.lbs.Serves(svc) || svc.DeletionTimestamp != nil {
		return allow, nil
	}
	problems := h.problems(svc)
	var before, changes []string
	if req.Operation == admissionv1.Update {
		old, err := decode(req.OldObject.Raw)
		if err != nil {
			return nil, fmt.Errorf("service %s/%s (old): %w", req.Namespace, req.Name, err)
		}
		if h.lbs.Serves(old) {
			before = h.problems(old)
			if msg := loadbalancer.PublicNetChangeWarning(old, svc); msg != "" {
				changes = append(changes, msg)
			}
		}
	}
	var introduced, kept []string
	for _, p := range problems {
		if slices.Contains(before, p) {
			kept = append(kept, p)
		} else {
			introduced = append(introduced, p)
		}
	}
	if len(introduced) > 0 {
		return &admissionv1.AdmissionResponse{UID: req.UID, Result: &metav1.Status{Status: metav1.StatusFailure,
			Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: strings.Join(introduced, "; ")}}, nil
	}
	allow.Warnings = append(append(kept, changes...), h.notes(svc)...)
	return allow, nil
}

// notes are warnings that do not refuse: source ranges no load balancer
// enforces, a deprecated type that can still be ordered, certificates the CCM found missing when it last looked,
// which may have been uploaded since, and TLS Secrets the API would not
// take (the fix is to the Secret, not the Service).
func (h *Handler) notes(svc *corev1.Service) []string {
	var out []string
	if msg := loadbalancer.SourceRangesWarning(svc); msg != "" {
		out = append(out, msg)
	}
	if !h.cloudChecks {
		return out
	}
	c, err := h.lbs.Validate(svc)
	if err != nil {
		return out
	}
	if msg := h.lbs.TypeDeprecated(c); msg != "" {
		out = append(out, msg)
	}
	out = append(out, h.lbs.CertificatesMissing(c)...)
	ctx, cancel := context.WithTimeout(context.Background(), secretReadTimeout)
	defer cancel()
	return append(out, h.lbs.SecretsRefused(ctx, c)...)
}

// secretReadTimeout bounds reading the TLS Secrets a Service names, well
// within the webhook's timeoutSeconds (5 in the chart).
const secretReadTimeout = 2 * time.Second

// problems are what a sync would refuse in svc, one message each.
func (h *Handler) problems(svc *corev1.Service) []string {
	c, err := h.lbs.Validate(svc)
	if err == nil && h.cloudChecks {
		err = h.lbs.CheckCached(svc, c)
	}
	var out []string
	for _, e := range flatten(err) {
		if m := e.Error(); !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// flatten is err's leaves, through errors.Join.
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range joined.Unwrap() {
		out = append(out, flatten(e)...)
	}
	return out
}

func decode(raw []byte) (*corev1.Service, error) {
	svc := &corev1.Service{}
	if err := json.Unmarshal(raw, svc); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	return svc, nil
}
