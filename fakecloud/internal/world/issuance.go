package world

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	cryptorand "crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

// endIssuance gives a managed certificate a freshly signed certificate for
// its domains, or marks its issuance failed.
func (w *project) endIssuance(cert *schema.Certificate, ok bool) {
	failed := func(code, msg string) {
		cert.Status = &schema.CertificateStatusRef{Issuance: "failed", Renewal: "unavailable", Error: &schema.Error{Code: code, Message: msg}}
	}
	if !ok {
		failed("dns_zone_not_found", "the DNS zone could not be found")
		return
	}
	now := w.Now().UTC().Truncate(time.Second)
	pemCert, parsed, err := issue(cert.DomainNames, now, w.Rng.Uint64())
	if err != nil {
		failed("unknown_error", err.Error())
		return
	}
	FillFromX509(cert, parsed, pemCert)
	cert.DomainNames = parsed.DNSNames
	cert.Status = &schema.CertificateStatusRef{Issuance: "completed", Renewal: "unavailable"}
}

// FillFromX509 fills a certificate's fields from its parsed form.
func FillFromX509(cert *schema.Certificate, parsed *x509.Certificate, pemText string) {
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
