package harness

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki is the control plane's certificates, written to dir: a CA, the
// apiserver's serving certificate, an admin client certificate
// (system:masters) and the service-account signing key.
type pki struct {
	dir                           string
	caCert, serverCert, serverKey string
	adminCert, adminKey           string
	saKey, saPub                  string
}

func newPKI(dir string) (*pki, error) {
	p := &pki{dir: dir}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "hcloud-ccm-e2e-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	if p.caCert, err = p.writePEM("ca.crt", "CERTIFICATE", caDER); err != nil {
		return nil, err
	}
	issue := func(name string, serial int64, subject pkix.Name, usage x509.ExtKeyUsage, ips []net.IP, dns []string) (string, string, error) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return "", "", err
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: subject, NotBefore: now.Add(-time.Hour),
			NotAfter: now.Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			IPAddresses: ips, DNSNames: dns}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			return "", "", err
		}
		kder, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			return "", "", err
		}
		c, err := p.writePEM(name+".crt", "CERTIFICATE", der)
		if err != nil {
			return "", "", err
		}
		k, err := p.writePEM(name+".key", "EC PRIVATE KEY", kder)
		return c, k, err
	}
	if p.serverCert, p.serverKey, err = issue("apiserver", 2, pkix.Name{CommonName: "kube-apiserver"}, x509.ExtKeyUsageServerAuth,
		[]net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("10.96.0.1")}, []string{"localhost", "kubernetes", "kubernetes.default.svc"}); err != nil {
		return nil, err
	}
	if p.adminCert, p.adminKey, err = issue("admin", 3, pkix.Name{CommonName: "e2e-admin", Organization: []string{"system:masters"}},
		x509.ExtKeyUsageClientAuth, nil, nil); err != nil {
		return nil, err
	}
	sa, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	if p.saKey, err = p.writePEM("sa.key", "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(sa)); err != nil {
		return nil, err
	}
	pub, err := x509.MarshalPKIXPublicKey(&sa.PublicKey)
	if err != nil {
		return nil, err
	}
	if p.saPub, err = p.writePEM("sa.pub", "PUBLIC KEY", pub); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *pki) writePEM(name, typ string, der []byte) (string, error) {
	path := filepath.Join(p.dir, name)
	return path, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600)
}
