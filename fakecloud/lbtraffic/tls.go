package lbtraffic

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/trafficspec"
)

// tlsConfig is the TLS configuration of an https service: its uploaded
// certificates as they were uploaded, Go choosing one by the client's
// server name as the load balancer does; with none (managed ones, which
// fakecloud cannot have issued, or uploads a state file restored without
// their keys), a self-signed certificate for their names.
func tlsConfig(svc trafficspec.Service, addr netip.Addr) (*tls.Config, error) {
	var certs []tls.Certificate
	for _, p := range svc.TLS {
		c, err := tls.X509KeyPair([]byte(p.Chain), []byte(p.Key))
		if err != nil {
			continue
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return selfSigned(svc.TLSNames, addr)
	}
	return &tls.Config{Certificates: certs}, nil
}

// tlsIdentity tells an https listener's certificates apart: a listener
// whose certificates change is opened again with the new ones.
func tlsIdentity(svc trafficspec.Service) string {
	ids := make([]string, 0, len(svc.TLS))
	for _, p := range svc.TLS {
		ids = append(ids, strconv.FormatInt(p.ID, 10))
	}
	return strings.Join(svc.TLSNames, ",") + "|" + strings.Join(ids, ",")
}

// selfSigned is a certificate fakecloud makes for names (or the load
// balancer's address when there are none).
func selfSigned(names []string, addr netip.Addr) (*tls.Config, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: "fakecloud load balancer"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     names,
		IPAddresses:  []net.IP{addr.AsSlice()},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}, nil
}
