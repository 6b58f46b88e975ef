package testcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"testing"
	"time"
)

// Chain is a certificate for host issued through cas certificate
// authorities: Certs[0] is the leaf, each next one its issuer, the last
// the self-signed root. KeyPEM is the leaf's key.
type Chain struct {
	Certs  []string // PEM, one certificate each
	KeyPEM string
}

// PEM is the chain from the leaf up, concatenated, as cert-manager writes
// tls.crt (with the root).
func (c Chain) PEM() string {
	out := ""
	for _, s := range c.Certs {
		out += s
	}
	return out
}

// NewChain is a chain of a leaf for host and cas authorities above it.
func NewChain(t testing.TB, host string, cas int) Chain {
	t.Helper()
	type signer struct {
		cert *x509.Certificate
		key  *ecdsa.PrivateKey
	}
	var issuer *signer
	var certs []string
	now := time.Now()
	for i := cas; i >= 0; i-- {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(int64(100 + i)), NotBefore: now.Add(-time.Hour), NotAfter: now.Add(90 * 24 * time.Hour)}
		if i > 0 {
			tmpl.Subject = pkix.Name{CommonName: fmt.Sprintf("test CA %d", i)}
			tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
			tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
		} else {
			tmpl.Subject, tmpl.DNSNames = pkix.Name{CommonName: host}, []string{host}
			tmpl.KeyUsage, tmpl.ExtKeyUsage = x509.KeyUsageDigitalSignature, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		}
		parent, parentKey := tmpl, key
		if issuer != nil {
			parent, parentKey = issuer.cert, issuer.key
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
		if err != nil {
			t.Fatal(err)
		}
		cert, err := x509.ParseCertificate(der)
		if err != nil {
			t.Fatal(err)
		}
		certs = append([]string{string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))}, certs...)
		issuer = &signer{cert, key}
		if i == 0 {
			kder, err := x509.MarshalPKCS8PrivateKey(key)
			if err != nil {
				t.Fatal(err)
			}
			return Chain{Certs: certs, KeyPEM: string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}))}
		}
	}
	panic("unreachable")
}
