package ccm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/bounds"
)

// Credentials from files (HCLOUD_TOKEN_FILE, ROBOT_USER_FILE,
// ROBOT_PASSWORD_FILE) are read again every CredentialsPeriod, as a
// mounted Secret changes under a running pod. New ones are checked
// against the API before they are sent; ones it refuses are not used:
// the old ones go on, the log and a Warning event on the CCM's Pod say
// so, and the readiness probe fails until the files hold what is sent.
// Nothing is forgotten or deleted because a credential changed.

// CredentialsPeriod is how often credential files are read again.
const CredentialsPeriod = 10 * time.Second

// eventCredentialsRejected is the reason of the event for new
// credentials the API refused.
const eventCredentialsRejected = "CredentialsRejected"

// errRefused marks a check's answer that the credentials are wrong, as
// opposed to one that could not be had.
var errRefused = errors.New("refused")

// source is one value of a credential: a file, or a fixed value (a user
// from ROBOT_USER beside a password from ROBOT_PASSWORD_FILE).
type source struct{ path, fixed string }

// rotating is a credential read from files: what is sent, and what the
// files held when last read.
type rotating struct {
	settings string // the settings, for messages: HCLOUD_TOKEN_FILE
	sources  []source
	// check asks the API whether values work: nil, an error wrapping
	// errRefused, or another error when that cannot be known now.
	check func(ctx context.Context, values []string) error

	mu      sync.Mutex
	current []string
	refused []string // last refused; not checked again until the files change
	problem string   // what the readiness probe says; "" when all is well
}

func newRotating(settings string, sources []source, current []string, check func(context.Context, []string) error) *rotating {
	return &rotating{settings: settings, sources: sources, current: current, check: check}
}

// get is what is sent now.
func (r *rotating) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.current)
}

// read is what the files hold now, trimmed.
func (r *rotating) read() ([]string, error) {
	out := make([]string, 0, len(r.sources))
	for _, s := range r.sources {
		if s.path == "" {
			out = append(out, s.fixed)
			continue
		}
		data, err := bounds.ReadSecretFile(s.path)
		if err != nil {
			return nil, fmt.Errorf("%q: cannot read it: %v", s.path, errors.Unwrap(err))
		}
		out = append(out, strings.TrimSpace(string(data)))
	}
	return out, nil
}

// refresh reads the files and takes what they hold once the API accepts
// it; it returns the event to post for a refusal ("" for none).
func (r *rotating) refresh(ctx context.Context) string {
	values, err := r.read()
	r.mu.Lock()
	current, refused := r.current, r.refused
	r.mu.Unlock()
	switch {
	case err != nil:
		r.setProblem(fmt.Sprintf("%s: %v; still sending what was read before", r.settings, err))
		return ""
	case slices.Equal(values, current):
		r.setProblem("")
		return ""
	case slices.Equal(values, refused):
		return ""
	}
	if err := r.check(ctx, values); err != nil {
		if !errors.Is(err, errRefused) {
			r.setProblem(fmt.Sprintf("%s changed, and the new credentials could not be checked (%v); still sending the previous ones, checking again", r.settings, err))
			klog.ErrorS(err, "New credentials could not be checked; the previous ones are still sent", "settings", r.settings)
			return ""
		}
		msg := fmt.Sprintf("%s changed, and the API refused the new credentials (%v); the previous ones are still sent until the file holds working ones", r.settings, err)
		r.mu.Lock()
		r.refused, r.problem = values, msg
		r.mu.Unlock()
		klog.ErrorS(err, "New credentials refused; the previous ones are still sent", "settings", r.settings)
		return msg
	}
	r.mu.Lock()
	r.current, r.refused, r.problem = values, nil, ""
	r.mu.Unlock()
	klog.InfoS("New credentials checked and in use", "settings", r.settings)
	return ""
}

func (r *rotating) setProblem(p string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p != r.problem && p != "" {
		klog.ErrorS(nil, p)
	}
	r.problem = p
}

// bearer sends the token the credential holds now, whatever the request
// carried.
type bearer struct {
	token *rotating
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token.get()[0])
	return b.next.RoundTrip(r)
}

// withToken is next sending a rotating token, or next alone without one.
func withToken(token *rotating, next http.RoundTripper) http.RoundTripper {
	if token == nil {
		return next
	}
	return bearer{token: token, next: next}
}

// apiCheck asks the Cloud API with a token: one server listed.
func apiCheck(endpoint string, timeout time.Duration) func(context.Context, []string) error {
	client := &http.Client{Timeout: timeout, Transport: bounds.Transport(nil)}
	return func(ctx context.Context, values []string) error {
		if _, err := checkToken(values[0]); err != nil {
			return fmt.Errorf("%w: %v", errRefused, err)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(endpoint, "/")+"/servers?per_page=1", nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+values[0])
		return answered(client.Do(req))
	}
}

// robotCheck asks the Robot webservice with a user and password: its
// server listing, which answers 404 when there is none.
func robotCheck(endpoint string, timeout time.Duration) func(context.Context, []string) error {
	client := &http.Client{Timeout: timeout, Transport: bounds.Transport(nil)}
	return func(ctx context.Context, values []string) error {
		if errs := checkRobotCredentials(values[0], values[1]); len(errs) > 0 {
			return fmt.Errorf("%w: %v", errRefused, errors.Join(errs...))
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(endpoint, "/")+"/server", nil)
		if err != nil {
			return err
		}
		req.SetBasicAuth(values[0], values[1])
		return answered(client.Do(req))
	}
}

// answered judges a check's answer: 401 refuses, 2xx and 404 accept,
// anything else is not known now.
func answered(resp *http.Response, err error) error {
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return fmt.Errorf("%w: %s", errRefused, resp.Status)
	case resp.StatusCode/100 == 2 || resp.StatusCode == http.StatusNotFound:
		return nil
	}
	return fmt.Errorf("answered %s", resp.Status)
}

// rotation is the credentials the CCM reads again, and where it tells
// of a refusal.
type rotation struct {
	creds  []*rotating
	period time.Duration

	mu       sync.Mutex
	recorder record.EventRecorder
	pod      *corev1.ObjectReference
}

// run reads the files every period until ctx ends.
func (r *rotation) run(ctx context.Context) {
	t := time.NewTicker(r.period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, c := range r.creds {
			cctx, cancel := context.WithTimeout(ctx, 2*AttemptTimeout)
			msg := c.refresh(cctx)
			cancel()
			if msg != "" {
				r.tell(msg)
			}
		}
	}
}

// tell posts a Warning event on the CCM's Pod, when both are known.
func (r *rotation) tell(msg string) {
	r.mu.Lock()
	rec, pod := r.recorder, r.pod
	r.mu.Unlock()
	if rec != nil && pod != nil {
		rec.Event(pod, corev1.EventTypeWarning, eventCredentialsRejected, msg)
	}
}

// Check is the readiness probe's: an error while a file holds
// credentials that are not the ones sent.
func (r *rotation) Check(context.Context) error {
	var errs []error
	for _, c := range r.creds {
		c.mu.Lock()
		if c.problem != "" {
			errs = append(errs, errors.New(c.problem))
		}
		c.mu.Unlock()
	}
	return errors.Join(errs...)
}

// rotating adds a credential the CCM reads again.
func (c *Cloud) rotating(r *rotating) { c.rotation.creds = append(c.rotation.creds, r) }

// startRotation reads the credential files again until ctx ends, and
// lets the readiness probe tell of new ones that are refused.
func (c *Cloud) startRotation(ctx context.Context) {
	if len(c.rotation.creds) == 0 {
		c.rotation = nil
		return
	}
	if c.server != nil {
		c.server.Add(Readiness, "credentials", c.rotation.Check)
	}
	go c.rotation.run(ctx)
}

// SetPod names the CCM's own Pod (POD_NAMESPACE, POD_NAME), which events
// about the CCM itself, such as refused credentials, are posted on.
func (c *Cloud) SetPod(namespace, name string) {
	if c.rotation == nil || namespace == "" || name == "" {
		return
	}
	c.rotation.mu.Lock()
	defer c.rotation.mu.Unlock()
	c.rotation.pod = &corev1.ObjectReference{Kind: "Pod", Namespace: namespace, Name: name}
}

func (r *rotation) setRecorder(rec record.EventRecorder) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recorder = rec
}
