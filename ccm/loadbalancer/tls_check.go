package loadbalancer

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// The API's limits of an uploaded certificate, since 2026-02-11
// (https://docs.hetzner.cloud/changelog): a private key of at most 5,000
// bytes, a chain of at most five certificates and 30,000 bytes. The API
// description asks for the chain "in order so that each record directly
// certifies the one preceding".
const (
	maxUploadKey        = 5000
	maxUploadChain      = 30000
	maxUploadChainCerts = 5
)

// SecretError is a TLS Secret the API would not take as an uploaded
// certificate: the sync uploads nothing from it and posts a Warning
// InvalidCertificateSecret naming the Secret and Why. It never quotes the
// Secret's data.
type SecretError struct {
	Secret string // namespace/name
	Why    string
}

func (e *SecretError) Error() string {
	return fmt.Sprintf("secret %s: %s", e.Secret, e.Why)
}

// CheckTLSSecret checks that sec holds what the API takes as an uploaded
// certificate: in tls.crt a PEM chain of parseable certificates, the leaf
// first and each certified by the next, within the API's limits; in
// tls.key a PEM private key of at most 5,000 bytes that belongs to the
// leaf. Its error is a *SecretError.
func CheckTLSSecret(sec *corev1.Secret) error {
	_, err := readTLS(sec)
	return err
}

// readTLS is CheckTLSSecret, and the pair it checked.
func readTLS(sec *corev1.Secret) (tlsPair, error) {
	key := sec.Namespace + "/" + sec.Name
	refuse := func(format string, args ...any) (tlsPair, error) {
		return tlsPair{}, &SecretError{Secret: key, Why: fmt.Sprintf(format, args...)}
	}
	crtPEM, keyPEM := sec.Data[corev1.TLSCertKey], sec.Data[corev1.TLSPrivateKeyKey]
	chain, why := parseChain(crtPEM)
	if why != "" {
		return refuse("%s %s", corev1.TLSCertKey, why)
	}
	kb, _ := pem.Decode(keyPEM)
	switch {
	case kb == nil || !strings.HasSuffix(kb.Type, "PRIVATE KEY"):
		return refuse("%s holds no PEM private key", corev1.TLSPrivateKeyKey)
	case len(keyPEM) > maxUploadKey:
		return refuse("%s is %d bytes, more than the %d the API takes (a smaller key: RSA 2048 to 4096 bits, or ECDSA)",
			corev1.TLSPrivateKeyKey, len(keyPEM), maxUploadKey)
	}
	if _, err := tls.X509KeyPair(crtPEM, keyPEM); err != nil {
		return refuse("%s does not belong to the first certificate of %s (%s)", corev1.TLSPrivateKeyKey, corev1.TLSCertKey, keyPairReason(err))
	}
	sum := sha256.Sum256(chain[0].Raw)
	return tlsPair{chain: string(crtPEM), key: string(keyPEM), fingerprint: hex.EncodeToString(sum[:])}, nil
}

// parseChain reads a PEM certificate chain as the API takes it; why says
// what is wrong, "" when nothing is.
func parseChain(b []byte) (chain []*x509.Certificate, why string) {
	if len(b) > maxUploadChain {
		return nil, fmt.Sprintf("is %d bytes, more than the %d the API takes for a chain", len(b), maxUploadChain)
	}
	rest := b
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return nil, fmt.Sprintf("holds a PEM %q block: only certificates belong there", block.Type)
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Sprintf("certificate %d does not parse", len(chain)+1)
		}
		chain = append(chain, c)
	}
	switch {
	case len(chain) == 0:
		return nil, "holds no PEM certificate"
	case len(chain) > maxUploadChainCerts:
		return nil, fmt.Sprintf("holds %d certificates, more than the %d the API takes in a chain", len(chain), maxUploadChainCerts)
	}
	for i := 0; i+1 < len(chain); i++ {
		if err := chain[i].CheckSignatureFrom(chain[i+1]); err != nil {
			return nil, fmt.Sprintf("is out of order: certificate %d (%s) is not signed by certificate %d (%s); the leaf comes first, then each issuer",
				i+1, chain[i].Subject.CommonName, i+2, chain[i+1].Subject.CommonName)
		}
	}
	return chain, ""
}

// keyPairReason is what crypto/tls found wrong with a pair, without the
// package's prefix.
func keyPairReason(err error) string {
	return strings.TrimPrefix(err.Error(), "tls: ")
}
