package loadbalancer

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/internal/testcert"
)

func tlsSecret(crt, key string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "tls"}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{corev1.TLSCertKey: []byte(crt), corev1.TLSPrivateKeyKey: []byte(key)}}
}

// TestCheckTLSSecret: what the API takes passes (a leaf alone, a chain in
// order up to five); each thing it would refuse is named, with the
// Secret, and never with the Secret's data.
func TestCheckTLSSecret(t *testing.T) {
	chain := testcert.NewChain(t, "shop.example.com", 2)
	six := testcert.NewChain(t, "shop.example.com", 5)
	other := testcert.New(t, "other.example.com")
	leafOnly := testcert.New(t, "shop.example.com")
	for _, tc := range []struct {
		name, crt, key, want string
	}{
		{"leaf", leafOnly.CertPEM, leafOnly.KeyPEM, ""},
		{"chain in order", chain.PEM(), chain.KeyPEM, ""},
		{"five certificates", strings.Join(six.Certs[:5], ""), six.KeyPEM, ""},
		{"six certificates", six.PEM(), six.KeyPEM, "holds 6 certificates, more than the 5"},
		{"key of another certificate", chain.PEM(), other.KeyPEM, "tls.key does not belong to the first certificate of tls.crt (private key does not match public key)"},
		{"chain out of order", chain.Certs[1] + chain.Certs[0] + chain.Certs[2], chain.KeyPEM, "is out of order: certificate 1 (test CA 1) is not signed by certificate 2 (shop.example.com)"},
		{"intermediate missing", chain.Certs[0] + chain.Certs[2], chain.KeyPEM, "is out of order: certificate 1 (shop.example.com) is not signed by certificate 2 (test CA 2)"},
		{"key in tls.crt", chain.PEM() + chain.KeyPEM, chain.KeyPEM, `tls.crt holds a PEM "PRIVATE KEY" block`},
		{"no certificate", "", chain.KeyPEM, "tls.crt holds no PEM certificate"},
		{"garbled certificate", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", chain.KeyPEM, "certificate 1 does not parse"},
		{"no key", chain.PEM(), "", "tls.key holds no PEM private key"},
		{"key over 5,000 bytes", chain.PEM(), chain.KeyPEM + strings.Repeat("# padding\n", 500), "tls.key is 5241 bytes, more than the 5000"},
		{"chain over 30,000 bytes", chain.PEM() + strings.Repeat("# padding\n", 3000), chain.KeyPEM, "more than the 30000 the API takes for a chain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckTLSSecret(tlsSecret(tc.crt, tc.key))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var se *SecretError
			if !errors.As(err, &se) || se.Secret != "shop/tls" || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a SecretError of shop/tls saying %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "BEGIN") || strings.Contains(err.Error(), tc.key[min(len(tc.key), 40):min(len(tc.key), 80)]) && tc.key != "" {
				t.Errorf("the error quotes the Secret: %v", err)
			}
		})
	}
}
