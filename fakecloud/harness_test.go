package fakecloud

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/contract"
)

var (
	specOnce      sync.Once
	specValidator validator.Validator
	specErr       error
	specMu        sync.Mutex // the validator is not safe for concurrent use
)

// openAPI returns a validator for the vendored Hetzner Cloud OpenAPI copy.
func openAPI(t testing.TB) validator.Validator {
	t.Helper()
	specOnce.Do(func() {
		data, err := os.ReadFile("../testdata/openapi/cloud.spec.json")
		if err != nil {
			specErr = err
			return
		}
		// The description writes response ranges as "4xx"; OpenAPI and the
		// validator spell them "4XX".
		data = bytes.ReplaceAll(data, []byte(`"4xx":`), []byte(`"4XX":`))
		data = bytes.ReplaceAll(data, []byte(`"5xx":`), []byte(`"5XX":`))
		// Requests are judged with the deviations fakecloud follows, where
		// the live API takes more than the description says.
		if data, specErr = contract.Deviate(data); specErr != nil {
			return
		}
		doc, err := libopenapi.NewDocument(data)
		if err != nil {
			specErr = err
			return
		}
		v, errs := validator.NewValidator(doc)
		if len(errs) > 0 {
			specErr = errs[0]
			return
		}
		specValidator = v
	})
	if specErr != nil {
		t.Fatalf("load OpenAPI description: %v", specErr)
	}
	return specValidator
}

// knownDeviation reports responses that follow the live API where it has
// changed since the vendored description (docs/reference/fakecloud/deviations.md).
func knownDeviation(r *http.Request, resp *http.Response) bool {
	if resp.Header.Get("X-Fakecloud-Fault") != "" && !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		return true // a fault rule's plain_body answer plays a proxy in front of the API
	}
	return r.Method == http.MethodDelete && strings.HasPrefix(r.URL.Path, "/v1/load_balancers/") && resp.StatusCode == http.StatusCreated
}

// validatingTransport checks every response against the OpenAPI description.
type validatingTransport struct {
	t    testing.TB
	base http.RoundTripper
}

func (vt validatingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := vt.base.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if !knownDeviation(r, resp) {
		checkResponse(vt.t, r, resp, body)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// checkResponse validates one response and reports each violation.
func checkResponse(t testing.TB, r *http.Request, resp *http.Response, body []byte) {
	t.Helper()
	v := openAPI(t)
	cp := *resp
	cp.Body = io.NopCloser(bytes.NewReader(body))
	specMu.Lock()
	ok, errs := v.ValidateHttpResponse(r, &cp)
	specMu.Unlock()
	if !ok {
		for _, e := range errs {
			detail := e.Reason
			for _, se := range e.SchemaValidationErrors {
				detail += "; " + se.Location + ": " + se.Reason
			}
			t.Errorf("%s %s -> %d violates the OpenAPI description: %s: %s\nbody: %.600s", r.Method, r.URL.Path, resp.StatusCode, e.Message, detail, body)
		}
	}
}

// requestProblems lists how a JSON request breaks the OpenAPI
// description, none when it keeps to it. Authentication is not judged.
func requestProblems(t testing.TB, method, target string, body []byte) []string {
	t.Helper()
	v := openAPI(t)
	r := httptest.NewRequest(method, target, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Authorization", "Bearer "+DefaultToken)
	specMu.Lock()
	ok, errs := v.ValidateHttpRequest(r)
	specMu.Unlock()
	if ok {
		return nil
	}
	var out []string
	for _, e := range errs {
		p := e.Message
		for _, se := range e.SchemaValidationErrors {
			p += "; " + se.Location + ": " + se.Reason
		}
		out = append(out, p)
	}
	return out
}

// fixture is a fakecloud on httptest with an hcloud-go client pointed at it.
type fixture struct {
	fc     *Server
	url    string
	client *hcloud.Client
}

// newFixture starts fakecloud and returns a client that retries and polls
// without sleeping and validates every response against the OpenAPI
// description.
func newFixture(t testing.TB, opts Options) *fixture {
	t.Helper()
	fc := New(opts)
	url := fakecloudtest.Serve(t, fc)
	token := DefaultToken
	if len(opts.Tokens) > 0 {
		token = opts.Tokens[0]
	}
	hc := &http.Client{Transport: validatingTransport{t: t, base: http.DefaultTransport}}
	return &fixture{fc: fc, url: url, client: fakecloudtest.Client(url, token, hcloud.WithHTTPClient(hc))}
}

// do sends a raw request and validates the response.
func (f *fixture) do(t testing.TB, method, path, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, f.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+DefaultToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if !knownDeviation(req, resp) {
		checkResponse(t, req, resp, data)
	}
	return resp, data
}
