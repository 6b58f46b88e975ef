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
	chain := make([]*x509.Certificate, len(pair.Certificate))
	for i, der := range pair.Certificate {
		if chain[i], err = x509.ParseCertificate(der); err != nil {
			return nil, "certificate", fmt.Sprintf("certificate %d cannot be parsed: %v", i+1, err)
		}
	}
	// The description: "in order so that each record directly certifies
	// the one preceding"; read as a requirement.
	for i := 0; i+1 < len(chain); i++ {
		if chain[i].CheckSignatureFrom(chain[i+1]) != nil {
			return nil, "certificate", fmt.Sprintf("certificate %d is not certified by certificate %d: the chain must be in order, each record certifying the one preceding", i+1, i+2)
		}
	}
	return chain[0], "", ""
}
