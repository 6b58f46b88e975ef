package world

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
)

// ParseUploaded checks a PEM certificate and its private key belong together.
// The limits of an uploaded certificate since 2026-02-11 (the API's
// changelog): a private key of at most 5 kB, a chain of at most five
// certificates and 30 kB. The changelog names no error code;
// invalid_input naming the field is the reading a client must handle.
const (
	maxPrivateKey = 5000
	maxChain      = 30000
	maxChainCerts = 5
)

func ParseUploaded(certPEM, keyPEM string) (cert *x509.Certificate, field, msg string) {
	switch {
	case certPEM == "" || keyPEM == "":
		return nil, "certificate", "certificate and private_key are required for an uploaded certificate"
	case len(keyPEM) > maxPrivateKey:
		return nil, "private_key", fmt.Sprintf("is longer than %d bytes", maxPrivateKey)
	case len(certPEM) > maxChain:
		return nil, "certificate", fmt.Sprintf("the chain is longer than %d bytes", maxChain)
	}
	pair, err := tls.X509KeyPair([]byte(certPEM), []byte(keyPEM))
	if err != nil {
		return nil, "certificate", "certificate and private_key are not a matching PEM pair: " + err.Error()
	}
	if len(pair.Certificate) > maxChainCerts {
		return nil, "certificate", fmt.Sprintf("the chain has %d certificates, more than %d", len(pair.Certificate), maxChainCerts)
	}
	parsed, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, "certificate", "certificate cannot be parsed: " + err.Error()
	}
	return parsed, "", ""
}
