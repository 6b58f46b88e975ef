package fakecloud

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/internal/testcert"
)

// testCert is a self-signed certificate with its key, in PEM, and the
// values the API should derive from it.
type testCert struct {
	certPEM, keyPEM string
	fingerprint     string // SHA-256 of the DER, colon-separated hex
	notBefore       time.Time
	notAfter        time.Time
}

// selfSigned makes an ECDSA P-256 self-signed certificate.
func selfSigned(t testing.TB, cn string, dnsNames []string, notBefore, notAfter time.Time) testCert {
	t.Helper()
	if dnsNames == nil {
		dnsNames = []string{} // the common name alone, no subject alternative name
	}
	p := testcert.With(t, testcert.Options{CommonName: cn, DNSNames: dnsNames, NotBefore: notBefore, NotAfter: notAfter})
	return testCert{certPEM: p.CertPEM, keyPEM: p.KeyPEM, fingerprint: sha256Fingerprint(p.DER),
		notBefore: notBefore.UTC().Truncate(time.Second), notAfter: notAfter.UTC().Truncate(time.Second)}
}

func sha256Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	parts := make([]string, len(sum))
	for i, b := range sum {
		parts[i] = hex.EncodeToString([]byte{b})
	}
	return strings.Join(parts, ":")
}

// sameFingerprint compares fingerprints ignoring the case of the hex digits.
func sameFingerprint(got, want string) bool { return strings.EqualFold(got, want) }

// uploadCert uploads a fresh self-signed certificate for the domains.
func uploadCert(t testing.TB, f *fixture, name string, labels map[string]string, domains ...string) *hcloud.Certificate {
	t.Helper()
	now := time.Now()
	tc := selfSigned(t, domains[0], domains, now.Add(-time.Hour), now.Add(24*time.Hour))
	c, _, err := f.client.Certificate.Create(t.Context(), hcloud.CertificateCreateOpts{
		Name: name, Certificate: tc.certPEM, PrivateKey: tc.keyPEM, Labels: labels,
	})
	if err != nil {
		t.Fatalf("upload certificate %s: %v", name, err)
	}
	return c
}

func TestCertificateUploaded(t *testing.T) {
	notBefore := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	notAfter := time.Date(2035, 6, 7, 8, 9, 10, 0, time.UTC)
	tests := []struct {
		name        string
		cn          string
		dnsNames    []string
		wantDomains []string
	}{
		{"subject alternative names", "example.com", []string{"example.com", "www.example.com", "*.api.example.com"},
			[]string{"example.com", "www.example.com", "*.api.example.com"}},
		{"common name only", "cn-only.example.com", nil, []string{"cn-only.example.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			ctx := t.Context()
			tc := selfSigned(t, tt.cn, tt.dnsNames, notBefore, notAfter)
			c, _, err := f.client.Certificate.Create(ctx, hcloud.CertificateCreateOpts{
				Name: "web", Certificate: tc.certPEM, PrivateKey: tc.keyPEM, Labels: map[string]string{"env": "prod"},
			})
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := f.client.Certificate.GetByID(ctx, c.ID)
			if err != nil || got == nil {
				t.Fatalf("get certificate %d: %v %v", c.ID, got, err)
			}
			for _, cert := range []*hcloud.Certificate{c, got} {
				if cert.Type != hcloud.CertificateTypeUploaded || cert.Name != "web" {
					t.Errorf("type %q name %q, want uploaded web", cert.Type, cert.Name)
				}
				if !sameFingerprint(cert.Fingerprint, tc.fingerprint) {
					t.Errorf("fingerprint %q, want %q", cert.Fingerprint, tc.fingerprint)
				}
				if diff := cmp.Diff(tt.wantDomains, cert.DomainNames); diff != "" {
					t.Errorf("domain_names (-want +got):\n%s", diff)
				}
				if !cert.NotValidBefore.Equal(notBefore) || !cert.NotValidAfter.Equal(notAfter) {
					t.Errorf("validity %s .. %s, want %s .. %s", cert.NotValidBefore, cert.NotValidAfter, notBefore, notAfter)
				}
				if cert.Certificate != tc.certPEM {
					t.Errorf("certificate PEM not returned as uploaded:\n%s", cert.Certificate)
				}
				if cert.Status != nil {
					t.Errorf("status %+v, want null for an uploaded certificate", cert.Status)
				}
				if len(cert.UsedBy) != 0 {
					t.Errorf("used_by %+v, want empty", cert.UsedBy)
				}
				if diff := cmp.Diff(map[string]string{"env": "prod"}, cert.Labels); diff != "" {
					t.Errorf("labels (-want +got):\n%s", diff)
				}
			}
			byName, _, err := f.client.Certificate.GetByName(ctx, "web")
			if err != nil || byName == nil || byName.ID != c.ID {
				t.Errorf("get by name: %v %v", byName, err)
			}
			// The raw body carries the private key nowhere.
			_, body := f.do(t, "GET", "/v1/certificates/"+itoa(int(c.ID)), "")
			if strings.Contains(string(body), "PRIVATE KEY") || strings.Contains(string(body), "private_key") {
				t.Errorf("certificate response leaks the private key: %s", body)
			}
		})
	}
}

func TestCertificateCreateValidation(t *testing.T) {
	f := newFixture(t, Options{})
	now := time.Now()
	a := selfSigned(t, "a.example.com", []string{"a.example.com"}, now.Add(-time.Hour), now.Add(time.Hour))
	b := selfSigned(t, "b.example.com", []string{"b.example.com"}, now.Add(-time.Hour), now.Add(time.Hour))
	uploadCert(t, f, "taken", nil, "taken.example.com")

	body := func(fields map[string]any) string { return string(mustJSON(t, fields)) }
	chain := testcert.NewChain(t, "shop.example.com", 2)
	tests := []struct {
		name      string
		body      string
		want      int
		code      string
		wantField string // invalid_input details name this field
	}{
		{"mismatching key pair", body(map[string]any{"name": "x", "certificate": a.certPEM, "private_key": b.keyPEM}), 422, "invalid_input", "certificate"},
		{"uploaded type explicit, mismatching key", body(map[string]any{"name": "x", "type": "uploaded", "certificate": b.certPEM, "private_key": a.keyPEM}), 422, "invalid_input", "certificate"},
		{"missing private key", body(map[string]any{"name": "x", "certificate": a.certPEM}), 422, "invalid_input", "certificate"},
		{"garbage PEM", body(map[string]any{"name": "x", "certificate": "not a certificate", "private_key": "nor a key"}), 422, "invalid_input", "certificate"},
		{"missing name", body(map[string]any{"certificate": a.certPEM, "private_key": a.keyPEM}), 422, "invalid_input", "name"},
		{"managed without domains", body(map[string]any{"name": "x", "type": "managed"}), 422, "invalid_input", "domain_names"},
		{"managed bad domain", body(map[string]any{"name": "x", "type": "managed", "domain_names": []string{"not a domain"}}), 422, "invalid_input", "domain_names"},
		{"unknown type", body(map[string]any{"name": "x", "type": "borrowed"}), 422, "invalid_input", "type"},
		{"reserved label", body(map[string]any{"name": "x", "certificate": a.certPEM, "private_key": a.keyPEM, "labels": map[string]string{"hetzner.cloud/x": "y"}}), 422, "invalid_input", "labels"},
		{"duplicate name", body(map[string]any{"name": "taken", "certificate": a.certPEM, "private_key": a.keyPEM}), 409, "uniqueness_error", ""},
		{"malformed", `{"name":`, 422, "json_error", ""},
		// The upload limits since 2026-02-11.
		{"private key over 5,000 bytes", body(map[string]any{"name": "x", "certificate": a.certPEM, "private_key": a.keyPEM + strings.Repeat("\n", 5001-len(a.keyPEM))}), 422, "invalid_input", "private_key"},
		{"chain over 30,000 bytes", body(map[string]any{"name": "x", "certificate": a.certPEM + strings.Repeat("\n", 30001-len(a.certPEM)), "private_key": a.keyPEM}), 422, "invalid_input", "certificate"},
		{"chain of six certificates", body(map[string]any{"name": "x", "certificate": strings.Repeat(a.certPEM, 6), "private_key": a.keyPEM}), 422, "invalid_input", "certificate"},
		// "in order so that each record directly certifies the one preceding"
		{"chain out of order", body(map[string]any{"name": "x", "certificate": chain.Certs[0] + chain.Certs[2] + chain.Certs[1], "private_key": chain.KeyPEM}), 422, "invalid_input", "certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, got := f.do(t, "POST", "/v1/certificates", tt.body)
			if resp.StatusCode != tt.want || !containsCode(got, tt.code) {
				t.Fatalf("got %d %s, want %d %s", resp.StatusCode, got, tt.want, tt.code)
			}
			if tt.wantField != "" {
				var env struct {
					Error struct {
						Details apierr.InvalidInputDetails `json:"details"`
					} `json:"error"`
				}
				if err := json.Unmarshal(got, &env); err != nil {
					t.Fatal(err)
				}
				if !slices.ContainsFunc(env.Error.Details.Fields, func(d apierr.FieldDetail) bool { return d.Name == tt.wantField }) {
					t.Errorf("details %+v do not name field %q", env.Error.Details, tt.wantField)
				}
			}
		})
	}

	// The same refusal through hcloud-go, and nothing was stored.
	_, _, err := f.client.Certificate.Create(t.Context(), hcloud.CertificateCreateOpts{Name: "x", Certificate: a.certPEM, PrivateKey: b.keyPEM})
	wantCode(t, err, hcloud.ErrorCodeInvalidInput)
	all, err := f.client.Certificate.All(t.Context())
	if err != nil || len(all) != 1 || all[0].Name != "taken" {
		t.Errorf("certificates after refused creates: %v %v, want only taken", all, err)
	}
	// In order, the same chain is taken.
	if _, _, err := f.client.Certificate.Create(t.Context(), hcloud.CertificateCreateOpts{Name: "in-order", Certificate: chain.PEM(), PrivateKey: chain.KeyPEM}); err != nil {
		t.Errorf("a chain in order: %v", err)
	}
}

func TestCertificateManagedIssuance(t *testing.T) {
	// Actions finish on the second poll, so the pending state is visible.
	f := newFixture(t, Options{ActionPolls: 2})
	ctx := t.Context()
	domains := []string{"example.com", "*.example.com"}
	res, _, err := f.client.Certificate.CreateCertificate(ctx, hcloud.CertificateCreateOpts{
		Name: "managed", Type: hcloud.CertificateTypeManaged, DomainNames: domains,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Action == nil || res.Action.Status != hcloud.ActionStatusRunning {
		t.Fatalf("create action %+v, want a running action", res.Action)
	}
	if !slices.ContainsFunc(res.Action.Resources, func(r *hcloud.ActionResource) bool {
		return r.ID == res.Certificate.ID && r.Type == hcloud.ActionResourceTypeCertificate
	}) {
		t.Errorf("action resources %+v do not name certificate %d", res.Action.Resources, res.Certificate.ID)
	}
	pending := res.Certificate
	if pending.Type != hcloud.CertificateTypeManaged || pending.Status == nil || pending.Status.Issuance != hcloud.CertificateStatusTypePending {
		t.Fatalf("new managed certificate: type %q status %+v, want managed, issuance pending", pending.Type, pending.Status)
	}
	if diff := cmp.Diff(domains, pending.DomainNames); diff != "" {
		t.Errorf("pending domain_names (-want +got):\n%s", diff)
	}
	if pending.Certificate != "" {
		t.Errorf("pending certificate already has a PEM: %q", pending.Certificate)
	}

	// While issuance runs the certificate is locked and cannot be retried.
	_, err = f.client.Certificate.Delete(ctx, pending)
	wantCode(t, err, hcloud.ErrorCodeLocked)
	_, _, err = f.client.Certificate.RetryIssuance(ctx, pending)
	wantCode(t, err, hcloud.ErrorUnsupportedError)

	if err := f.client.Action.WaitFor(ctx, res.Action); err != nil {
		t.Fatalf("wait for issuance: %v", err)
	}
	got, _, err := f.client.Certificate.GetByID(ctx, pending.ID)
	if err != nil || got == nil {
		t.Fatalf("get certificate: %v %v", got, err)
	}
	if got.Status == nil || got.Status.Issuance != hcloud.CertificateStatusTypeCompleted || got.Status.Error != nil {
		t.Fatalf("status after issuance %+v, want issuance completed without error", got.Status)
	}
	block, rest := pem.Decode([]byte(got.Certificate))
	if block == nil || block.Type != "CERTIFICATE" || len(strings.TrimSpace(string(rest))) != 0 {
		t.Fatalf("issued certificate is not one PEM certificate: %q", got.Certificate)
	}
	parsed, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(domains, parsed.DNSNames); diff != "" {
		t.Errorf("issued certificate DNS names (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(domains, got.DomainNames); diff != "" {
		t.Errorf("domain_names after issuance (-want +got):\n%s", diff)
	}
	if !sameFingerprint(got.Fingerprint, sha256Fingerprint(block.Bytes)) {
		t.Errorf("fingerprint %q does not match the issued certificate %q", got.Fingerprint, sha256Fingerprint(block.Bytes))
	}
	if !got.NotValidBefore.Equal(parsed.NotBefore) || !got.NotValidAfter.Equal(parsed.NotAfter) {
		t.Errorf("validity %s .. %s, certificate says %s .. %s", got.NotValidBefore, got.NotValidAfter, parsed.NotBefore, parsed.NotAfter)
	}
	if d := got.NotValidAfter.Sub(got.NotValidBefore); d != 90*24*time.Hour {
		t.Errorf("issued for %s, want 90 days", d)
	}
	if time.Since(got.NotValidBefore) > time.Hour || time.Until(got.NotValidBefore) > time.Minute {
		t.Errorf("not_valid_before %s is not about now", got.NotValidBefore)
	}

	// A completed certificate is not retried; neither is an uploaded one.
	_, _, err = f.client.Certificate.RetryIssuance(ctx, got)
	wantCode(t, err, hcloud.ErrorUnsupportedError)
	up := uploadCert(t, f, "uploaded", nil, "up.example.com")
	resp, body := f.do(t, "POST", "/v1/certificates/"+itoa(int(up.ID))+"/actions/retry", "")
	if resp.StatusCode != http.StatusUnprocessableEntity || !containsCode(body, "unsupported_error") {
		t.Errorf("retry uploaded: %d %s, want 422 unsupported_error", resp.StatusCode, body)
	}
	resp, body = f.do(t, "POST", "/v1/certificates/999/actions/retry", "")
	if resp.StatusCode != http.StatusNotFound || !containsCode(body, "not_found") {
		t.Errorf("retry unknown: %d %s, want 404 not_found", resp.StatusCode, body)
	}
}

func TestCertificateRetryFailedIssuance(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	// Issuance fails as an action fault makes its action fail.
	if _, err := f.fc.AddActionFault(ActionFault{Command: "create_certificate", ErrorCode: "dns_zone_not_found", Count: 1}); err != nil {
		t.Fatal(err)
	}
	res, _, err := f.client.Certificate.CreateCertificate(ctx, hcloud.CertificateCreateOpts{
		Name: "managed", Type: hcloud.CertificateTypeManaged, DomainNames: []string{"example.org"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.client.Action.WaitFor(ctx, res.Action); err == nil {
		t.Fatal("the issuance action succeeded, want it failed by the action fault")
	}

	failed, _, err := f.client.Certificate.GetByID(ctx, res.Certificate.ID)
	if err != nil || failed == nil || !failed.Status.IsFailed() {
		t.Fatalf("certificate %+v %v, want failed issuance", failed, err)
	}
	a, _, err := f.client.Certificate.RetryIssuance(ctx, failed)
	if err != nil {
		t.Fatalf("retry a failed certificate: %v", err)
	}
	if err := f.client.Action.WaitFor(ctx, a); err != nil {
		t.Fatal(err)
	}
	got, _, err := f.client.Certificate.GetByID(ctx, failed.ID)
	if err != nil || got.Status == nil || got.Status.Issuance != hcloud.CertificateStatusTypeCompleted || got.Certificate == "" {
		t.Fatalf("after retry: %+v %v, want issuance completed with a certificate", got, err)
	}
}
