package http

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// lookupFunc looks an environment variable up, telling "" from unset.
type lookupFunc func(string) (string, bool)

// get is the variable's value, "" when unset.
func (l lookupFunc) get(key string) string {
	v, _ := l(key)
	return v
}

// newTLSConfig is the TLS side of git's http.* settings for the URL:
// http.sslVerify (GIT_SSL_NO_VERIFY), the authorities of http.sslCAInfo
// (GIT_SSL_CAINFO) and http.sslCAPath (GIT_SSL_CAPATH), the client
// certificate of http.sslCert and http.sslKey (GIT_SSL_CERT, GIT_SSL_KEY),
// the floor of http.sslVersion (GIT_SSL_VERSION) and http.pinnedPubkey.
// A variable overrides the setting, as in git.
func newTLSConfig(hc config, env lookupFunc, warn func(string)) (*tls.Config, error) {
	cfg := &tls.Config{}
	verify, err := hc.bool("sslVerify", true)
	if err != nil {
		return nil, err
	}
	if v, _ := env("GIT_SSL_NO_VERIFY"); !verify || v != "" {
		cfg.InsecureSkipVerify = true
	}
	if cfg.RootCAs, err = rootCAs(hc, env); err != nil {
		return nil, err
	}
	if err := clientCert(hc, env, cfg); err != nil {
		return nil, err
	}
	version, _ := pathSetting(hc, env, "sslVersion", "GIT_SSL_VERSION", false)
	switch version {
	case "", "sslv2", "sslv3", "tlsv1", "tlsv1.0", "tlsv1.1", "tlsv1.2":
		// curl's CURLOPT_SSLVERSION is a floor; Go's own, TLS 1.2, is
		// as high as any of these.
	case "tlsv1.3":
		cfg.MinVersion = tls.VersionTLS13
	default:
		warn(fmt.Sprintf("unsupported ssl version %s: using default", version))
	}
	if e, ok := hc.get("pinnedPubkey"); ok {
		path, err := repo.ExpandPath(e.Value, env.get)
		if err != nil {
			return nil, err
		}
		cfg.VerifyConnection = newPinnedKey(path).verify
	}
	return cfg, nil
}

// rootCAs is the pool of authorities of http.sslCAInfo, a file, and of
// http.sslCAPath, every certificate file in a directory (as git's GnuTLS
// build reads it); nil, the system's, when neither is set. Either one
// replaces the system's authorities: curl may add its default bundle, the
// helper does not.
func rootCAs(hc config, env lookupFunc) (*x509.CertPool, error) {
	caInfo, err := pathSetting(hc, env, "sslCAInfo", "GIT_SSL_CAINFO", true)
	if err != nil {
		return nil, err
	}
	caPath, err := pathSetting(hc, env, "sslCAPath", "GIT_SSL_CAPATH", true)
	if err != nil || caInfo == "" && caPath == "" {
		return nil, err
	}
	pool := x509.NewCertPool()
	if caInfo != "" {
		b, err := os.ReadFile(caInfo)
		if err != nil {
			return nil, fmt.Errorf("unable to read the CA bundle '%s': %v", caInfo, err)
		}
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("no certificate in the CA bundle '%s'", caInfo)
		}
	}
	if caPath != "" {
		files, err := os.ReadDir(caPath)
		if err != nil {
			return nil, fmt.Errorf("unable to read the CA directory '%s': %v", caPath, err)
		}
		for _, f := range files {
			if b, err := os.ReadFile(filepath.Join(caPath, f.Name())); err == nil {
				pool.AppendCertsFromPEM(b)
			}
		}
	}
	return pool, nil
}

// clientCert loads the certificate of http.sslCert, with the key of
// http.sslKey or else the one in the certificate's file, and offers it to
// every server that asks, as curl does (whatever authorities it names).
func clientCert(hc config, env lookupFunc, cfg *tls.Config) error {
	certFile, err := pathSetting(hc, env, "sslCert", "GIT_SSL_CERT", true)
	if err != nil || certFile == "" {
		return err
	}
	keyFile, err := pathSetting(hc, env, "sslKey", "GIT_SSL_KEY", true)
	if err != nil {
		return err
	}
	protected, err := hc.bool("sslCertPasswordProtected", false)
	if err != nil {
		return err
	}
	const why = "the helper cannot ask git credential for the key's passphrase and decrypt it"
	if protected {
		return &refusal{"http.sslCertPasswordProtected", why}
	}
	if _, set := env("GIT_SSL_CERT_PASSWORD_PROTECTED"); set && hc.target.Scheme == string(transport.HTTPS) {
		return &refusal{"GIT_SSL_CERT_PASSWORD_PROTECTED", why}
	}
	if keyFile == "" {
		keyFile = certFile
	}
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return fmt.Errorf("could not load PEM client certificate from %s: %v", certFile, err)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return fmt.Errorf("could not load PEM client key from %s: %v", keyFile, err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return fmt.Errorf("could not load PEM client certificate from %s: %v", certFile, err)
	}
	cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }
	return nil
}

// pathSetting is the value of http.<key> for the URL (a path, with "~"
// expanded, when path is set), or of the variable that overrides it. An
// empty path in the variable counts as unset: git would hand curl an empty
// file name, which names no file.
func pathSetting(hc config, env lookupFunc, key, variable string, path bool) (string, error) {
	if v, ok := env(variable); ok && (v != "" || !path) {
		return v, nil
	}
	e, ok := hc.get(key)
	if !ok || !path {
		return e.Value, nil
	}
	return repo.ExpandPath(e.Value, env.get)
}
