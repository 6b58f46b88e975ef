// Package testcert makes self-signed TLS certificates for tests: what an
// operator uploads to the API, or what cert-manager writes into a
// kubernetes.io/tls Secret.
package testcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"math/big"
	"testing"
	"time"
)

// Pair is a certificate and its private key.
type Pair struct {
	CertPEM, KeyPEM string // PEM: CERTIFICATE, and PKCS #8 PRIVATE KEY
	DER             []byte // the certificate
	Fingerprint     string // SHA-256 of the DER, hex
}

// Options say what the certificate holds; zero values take the defaults.
type Options struct {
	CommonName string
	DNSNames   []string  // nil: the common name; empty: none
	NotBefore  time.Time // default: an hour ago
	NotAfter   time.Time // default: in 90 days, as cert-manager's
}

// New is a certificate for host, valid from an hour ago for 90 days,
// with a serial of its own: two calls give two certificates.
func New(t testing.TB, host string) Pair {
	t.Helper()
	return With(t, Options{CommonName: host})
}

// With is a certificate as o says.
func With(t testing.TB, o Options) Pair {
	t.Helper()
	if o.DNSNames == nil {
		o.DNSNames = []string{o.CommonName}
	}
	if o.NotBefore.IsZero() {
		o.NotBefore = time.Now().Add(-time.Hour)
	}
	if o.NotAfter.IsZero() {
		o.NotAfter = time.Now().Add(90 * 24 * time.Hour)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: o.CommonName}, DNSNames: o.DNSNames,
		NotBefore: o.NotBefore, NotAfter: o.NotAfter,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return Pair{CertPEM: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		KeyPEM: string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder})), DER: der, Fingerprint: Fingerprint(der)}
}

// Fingerprint is the SHA-256 of a certificate's DER, hex.
func Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:])
}
