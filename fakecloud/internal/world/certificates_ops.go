package world

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	cryptorand "crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

// viewCert shows a certificate with the load balancers that use it.
func (w *State) viewCert(cert *schema.Certificate) schema.Certificate {
	v := *cert
	v.Labels = copyLabels(cert.Labels)
	v.DomainNames = append([]string{}, cert.DomainNames...)
	v.UsedBy = []schema.CertificateUsedByRef{}
	for _, lb := range w.loadBalancers.all() {
		if slices.ContainsFunc(lb.Services, func(s schema.LoadBalancerService) bool {
			return s.HTTP != nil && slices.Contains(s.HTTP.Certificates, cert.ID)
		}) {
			v.UsedBy = append(v.UsedBy, schema.CertificateUsedByRef{ID: lb.ID, Type: "load_balancer"})
		}
	}
	if cert.Status != nil {
		st := *cert.Status
		v.Status = &st
	}
	return v
}

// Certificate is the certificate with the ID.
func (t *Tx) Certificate(id int64) (schema.Certificate, *apiError) {
	cert, err := find(&t.w.certificates, "certificate", id)
	if err != nil {
		return schema.Certificate{}, err
	}
	return t.w.viewCert(cert), nil
}

// Certificates lists the certificates a query and the types (any, if
// none) select, one page of them, and how many they select in all.
func (t *Tx) Certificates(q ListQuery, types []string) ([]schema.Certificate, int, *apiError) {
	items := slices.DeleteFunc(t.w.certificates.all(), func(cert *schema.Certificate) bool {
		return !q.keeps(cert.Name, cert.Labels) || (len(types) > 0 && !slices.Contains(types, cert.Type))
	})
	keys := byIDNameCreated(func(c *schema.Certificate) int64 { return c.ID }, func(c *schema.Certificate) string { return c.Name },
		func(c *schema.Certificate) int64 { return c.Created.Unix() })
	if err := ApplySort(items, q.Sort, keys); err != nil {
		return nil, 0, err
	}
	page := Cut(items, q)
	out := make([]schema.Certificate, 0, len(page))
	for _, cert := range page {
		out = append(out, t.w.viewCert(cert))
	}
	return out, len(items), nil
}

// CertificateCreated is what creating a certificate answers: a managed
// one comes with its issuance action.
type CertificateCreated struct {
	Certificate schema.Certificate `json:"certificate"`
	Action      *schema.Action     `json:"action"`
}

// CreateCertificate stores an uploaded certificate, or starts issuing a
// managed one.
func (t *Tx) CreateCertificate(req schema.CertificateCreateRequest) (CertificateCreated, *apiError) {
	w := t.w
	var f fieldErrors
	checkName(&f, "name", req.Name)
	labels := derefLabels(req.Labels)
	validateLabels(&f, "labels", labels)
	if req.Type == "" {
		req.Type = "uploaded"
	}
	now := w.now().UTC().Truncate(time.Second)
	cert := &schema.Certificate{Name: req.Name, Labels: labels, Type: req.Type, Created: now}
	switch req.Type {
	case "uploaded":
		parsed, msg := parseUploaded(req.Certificate, req.PrivateKey)
		if msg != "" {
			f.add("certificate", "%s", msg)
			break
		}
		fillFromX509(cert, parsed, req.Certificate)
	case "managed":
		if len(req.DomainNames) == 0 {
			f.add("domain_names", "at least one domain name is required for a managed certificate")
		}
		checkUnique(&f, "domain_names", req.DomainNames)
		for _, d := range req.DomainNames {
			if !hostnameRe.MatchString(strings.TrimPrefix(d, "*.")) {
				f.add("domain_names", "%q is not a valid domain name", d)
			}
		}
		cert.DomainNames = req.DomainNames
		cert.Status = &schema.CertificateStatusRef{Issuance: "pending", Renewal: "unavailable"}
	default:
		f.add("type", "%q is not one of uploaded, managed", req.Type)
	}
	if err := f.err(); err != nil {
		return CertificateCreated{}, err
	}
	if _, dup := w.certificates.find(func(o *schema.Certificate) bool { return o.Name == req.Name }); dup {
		return CertificateCreated{}, notUnique("name", "certificate name %q is already used", req.Name)
	}
	cert.ID = w.newID("certificate")
	w.certificates.put(cert.ID, cert)
	out := CertificateCreated{}
	if cert.Type == "managed" {
		a := w.startIssuance(cert)
		av := w.viewAction(a)
		out.Action = &av
	}
	out.Certificate = w.viewCert(cert)
	return out, nil
}

// startIssuance runs the issuance action; endIssuance applies its end.
func (w *State) startIssuance(cert *schema.Certificate) *StoredAction {
	return w.startAction(actionSpec{command: "create_certificate", resources: []resourceRef{{"certificate", cert.ID}},
		finish: finish{IssueCertificate: true}})
}

// endIssuance gives a managed certificate a freshly signed certificate for
// its domains, or marks its issuance failed.
func (w *State) endIssuance(cert *schema.Certificate, ok bool) {
	failed := func(code, msg string) {
		cert.Status = &schema.CertificateStatusRef{Issuance: "failed", Renewal: "unavailable", Error: &schema.Error{Code: code, Message: msg}}
	}
	if !ok {
		failed("dns_zone_not_found", "the DNS zone could not be found")
		return
	}
	now := w.now().UTC().Truncate(time.Second)
	pemCert, parsed, err := issue(cert.DomainNames, now, w.rng.Uint64())
	if err != nil {
		failed("unknown_error", err.Error())
		return
	}
	fillFromX509(cert, parsed, pemCert)
	cert.DomainNames = parsed.DNSNames
	cert.Status = &schema.CertificateStatusRef{Issuance: "completed", Renewal: "unavailable"}
}

// RetryCertificate issues again a managed certificate whose issuance failed.
func (t *Tx) RetryCertificate(id int64) (schema.Action, *apiError) {
	cert, err := find(&t.w.certificates, "certificate", id)
	if err != nil {
		return schema.Action{}, err
	}
	if cert.Type != "managed" || cert.Status == nil || cert.Status.Issuance != "failed" {
		return schema.Action{}, errorf(codeUnsupportedError, "only a managed certificate whose issuance failed can be retried")
	}
	if err := t.w.checkLock(resourceRef{"certificate", cert.ID}); err != nil {
		return schema.Action{}, err
	}
	cert.Status = &schema.CertificateStatusRef{Issuance: "pending", Renewal: "unavailable"}
	a := t.w.startIssuance(cert)
	return t.w.viewAction(a), nil
}

// UpdateCertificate renames and relabels a certificate.
func (t *Tx) UpdateCertificate(id int64, req schema.CertificateUpdateRequest) (schema.Certificate, *apiError) {
	cert, err := find(&t.w.certificates, "certificate", id)
	if err != nil {
		return schema.Certificate{}, err
	}
	taken := nameTaken(&t.w.certificates, func(o *schema.Certificate) string { return o.Name })
	if err := renameRelabel("certificate", req.Name, req.Labels, checkName, taken, &cert.Name, &cert.Labels); err != nil {
		return schema.Certificate{}, err
	}
	return t.w.viewCert(cert), nil
}

// DeleteCertificate deletes a certificate no load balancer uses.
func (t *Tx) DeleteCertificate(id int64) *apiError {
	cert, err := find(&t.w.certificates, "certificate", id)
	if err != nil {
		return err
	}
	if v := t.w.viewCert(cert); len(v.UsedBy) > 0 {
		return errorf("resource_in_use", "certificate %d is used by load balancer %d", cert.ID, v.UsedBy[0].ID)
	}
	if lb, ok := t.w.certHeldByAction(cert.ID); ok {
		return errorf("resource_in_use", "certificate %d is used by load balancer %d until its running action ends", cert.ID, lb)
	}
	if err := t.w.checkLock(resourceRef{"certificate", cert.ID}); err != nil {
		return err
	}
	t.w.certificates.del(cert.ID)
	return nil
}

// parseUploaded checks a PEM certificate and its private key belong together.
func parseUploaded(certPEM, keyPEM string) (*x509.Certificate, string) {
	if certPEM == "" || keyPEM == "" {
		return nil, "certificate and private_key are required for an uploaded certificate"
	}
	pair, err := tls.X509KeyPair([]byte(certPEM), []byte(keyPEM))
	if err != nil {
		return nil, "certificate and private_key are not a matching PEM pair: " + err.Error()
	}
	parsed, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, "certificate cannot be parsed: " + err.Error()
	}
	return parsed, ""
}

func fillFromX509(cert *schema.Certificate, parsed *x509.Certificate, pemText string) {
	cert.Certificate = pemText
	cert.NotValidBefore = parsed.NotBefore.UTC()
	cert.NotValidAfter = parsed.NotAfter.UTC()
	cert.DomainNames = parsed.DNSNames
	if len(cert.DomainNames) == 0 && parsed.Subject.CommonName != "" {
		cert.DomainNames = []string{parsed.Subject.CommonName}
	}
	sum := sha256.Sum256(parsed.Raw)
	parts := make([]string, len(sum))
	for i, b := range sum {
		parts[i] = fmt.Sprintf("%02X", b)
	}
	cert.Fingerprint = strings.Join(parts, ":")
}

// issue signs a 90-day certificate for the domains, as a managed
// certificate's issuer would.
func issue(domains []string, now time.Time, serial uint64) (string, *x509.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), cryptorand.Reader)
	if err != nil {
		return "", nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: new(big.Int).SetUint64(serial), Subject: pkix.Name{CommonName: domains[0]},
		DNSNames: domains, NotBefore: now, NotAfter: now.Add(90 * 24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(cryptorand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return "", nil, err
	}
	parsed, err := x509.ParseCertificate(der)
	if err != nil {
		return "", nil, err
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), parsed, nil
}
