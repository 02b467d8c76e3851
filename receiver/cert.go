package receiver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// receiverCertLife is how long a receiver certificate made by webhook
// receive is valid; a certificate within a day of its end is made anew.
const receiverCertLife = 365 * 24 * time.Hour

// DefaultCAFile is where webhook receive keeps its certificate unless told
// otherwise: in the user's configuration directory ($XDG_CONFIG_HOME or
// ~/.config/agenttrust on Linux), outside any checkout, so no repository
// ever holds a receiver's private key. Without a home directory it falls
// back to the working directory.
func DefaultCAFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "receiver-ca.pem"
	}
	return filepath.Join(dir, "agenttrust", "receiver-ca.pem")
}

// listenTLS listens on the loopback address listen with the receiver's
// certificate from caFile (made there on first use) and returns the
// listener with its https URL.
func listenTLS(listen, caFile string) (net.Listener, string, error) {
	cert, err := receiverCert(caFile)
	if err != nil {
		return nil, "", err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, "", fmt.Errorf("webhook receive: listen on %s: %w", listen, err)
	}
	url, err := loopbackURL(ln.Addr())
	if err != nil {
		ln.Close()
		return nil, "", err
	}
	return tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}), url, nil
}

// keyFileOf is where the key of the certificate in caFile is kept.
func keyFileOf(caFile string) string {
	return strings.TrimSuffix(caFile, filepath.Ext(caFile)) + ".key"
}

// receiverCert loads the certificate in caFile and its key, or makes both
// when either is missing or the certificate is about to end. The
// certificate is its own authority (self-signed, for 127.0.0.1, ::1 and
// localhost), so the service trusts it through WEBHOOK_CA_FILE=caFile.
func receiverCert(caFile string) (tls.Certificate, error) {
	keyFile := keyFileOf(caFile)
	cert, err := tls.LoadX509KeyPair(caFile, keyFile)
	if err == nil && time.Until(cert.Leaf.NotAfter) > 24*time.Hour {
		return cert, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return tls.Certificate{}, fmt.Errorf("webhook receive: read %s and %s: %w (delete both to make new ones)", caFile, keyFile, err)
	}
	certPEM, keyPEM, err := newReceiverCert(time.Now())
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("webhook receive: make a certificate: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(caFile), 0o700); err != nil {
		return tls.Certificate{}, fmt.Errorf("webhook receive: make %s: %w", filepath.Dir(caFile), err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		return tls.Certificate{}, fmt.Errorf("webhook receive: write %s: %w", keyFile, err)
	}
	if err := os.WriteFile(caFile, certPEM, 0o644); err != nil {
		return tls.Certificate{}, fmt.Errorf("webhook receive: write %s: %w", caFile, err)
	}
	return tls.X509KeyPair(certPEM, keyPEM)
}

// newReceiverCert makes a self-signed certificate for the loopback names,
// valid from now, and its key, both PEM.
func newReceiverCert(now time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "agenttrust webhook receive (development only)"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(receiverCertLife),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), nil
}

// NotLoopbackError is a listen address that is not loopback: the receiver's
// certificate names only loopback addresses.
type NotLoopbackError struct{ Addr string }

func (e *NotLoopbackError) Error() string {
	return fmt.Sprintf("webhook receive: --listen must be a loopback address such as 127.0.0.1:0 (got %s)", e.Addr)
}

// loopbackURL is the https URL of a listener on addr, which must be a
// loopback address (else a *NotLoopbackError).
func loopbackURL(addr net.Addr) (string, error) {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "", err
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return "", &NotLoopbackError{Addr: strings.TrimSpace(addr.String())}
	}
	return "https://" + net.JoinHostPort(host, port) + "/", nil
}
