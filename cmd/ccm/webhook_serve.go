package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/cloud-provider/app"
	"k8s.io/cloud-provider/app/config"
	cmfeatures "k8s.io/controller-manager/pkg/features"
	"k8s.io/klog/v2"
)

// The webhook port's limits on one request, beyond the server's own
// (headers within 32 s, idle connections closed after 90 s). The
// apiserver sends an AdmissionReview at once and waits 10 s by default;
// a review holds a Service and its old version, far below the limit.
// The request line's target is at most maxReviewURI bytes: the apiserver
// sends the path and ?timeout=10s, and the upstream handler logs the
// whole target of every request it gets.
const (
	reviewReadTimeout = 10 * time.Second
	maxReview         = 4 << 20
	maxReviewURI      = 1 << 10
)

// serveWebhooks serves webhooks on --webhook-secure-port as app.Run
// would, except that every request's body is read within
// reviewReadTimeout and up to maxReview bytes, so a slow or endless
// client is answered and let go, and that a request the apiserver would
// not send (not a POST, a target over maxReviewURI) is refused before
// the upstream handler logs it.
func serveWebhooks(c *config.CompletedConfig, webhooks map[string]app.WebhookHandler, stop <-chan struct{}) error {
	if len(webhooks) == 0 || c.WebhookSecureServing == nil || !utilfeature.DefaultFeatureGate.Enabled(cmfeatures.CloudControllerManagerWebhook) {
		return nil
	}
	mux := http.NewServeMux()
	for _, h := range webhooks {
		mux.Handle(h.Path, boundedReview(h, reviewReadTimeout, maxReview))
	}
	klog.InfoS("Serving webhooks", "webhooks", len(webhooks), "readTimeout", reviewReadTimeout, "maxBody", maxReview)
	_, _, err := c.WebhookSecureServing.Serve(mux, 0, stop)
	return err
}

// boundedReview reads the request's body within timeout and up to max
// bytes before next sees it; only a POST with a target of at most
// maxReviewURI bytes gets that far, as the apiserver sends.
func boundedReview(next http.Handler, timeout time.Duration, max int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "an admission review is a POST", http.StatusMethodNotAllowed)
			return
		}
		if len(r.RequestURI) > maxReviewURI {
			http.Error(w, fmt.Sprintf("the request target is longer than %d bytes", maxReviewURI), http.StatusRequestURITooLong)
			return
		}
		rc := http.NewResponseController(w)
		if err := rc.SetReadDeadline(time.Now().Add(timeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			klog.ErrorS(err, "Setting the webhook request's read deadline")
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			http.Error(w, fmt.Sprintf("the admission review is larger than %d bytes", max), http.StatusRequestEntityTooLarge)
			return
		case err != nil:
			http.Error(w, fmt.Sprintf("reading the admission review: %v", err), http.StatusRequestTimeout)
			return
		}
		_ = rc.SetReadDeadline(time.Time{})
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}
