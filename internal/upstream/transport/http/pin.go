package http

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"io"
	"os"
	"strings"
)

// errPinMismatch is curl's CURLE_SSL_PINNEDPUBKEYNOTMATCH, in its words.
var errPinMismatch = errors.New("SSL: public key does not match pinned public key")

// maxPinnedKey bounds a pinned key file, as curl's MAX_PINNED_PUBKEY_SIZE.
const maxPinnedKey = 1 << 20

// pinnedKey is http.pinnedPubkey read as curl reads CURLOPT_PINNEDPUBLICKEY:
// "sha256//<base64>" digests of the server's SubjectPublicKeyInfo, several
// joined by ";sha256//", or else the name of a file holding the key itself,
// DER or PEM ("PUBLIC KEY"). A file that cannot be read, or holds no key,
// matches no server: every handshake fails, as git's does.
type pinnedKey struct {
	digests []string // base64, compared as text, as curl does
	der     []byte   // the key of a file
}

// newPinnedKey reads the setting's value (a path already expanded).
func newPinnedKey(value string) *pinnedKey {
	p := &pinnedKey{}
	if rest, ok := strings.CutPrefix(value, "sha256//"); ok {
		p.digests = strings.Split(rest, ";sha256//")
		return p
	}
	f, err := os.Open(value)
	if err != nil {
		return p
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPinnedKey+1))
	if err != nil || len(b) > maxPinnedKey {
		return p
	}
	p.der = b
	if der, ok := pemPublicKey(b); ok {
		p.der = der
	}
	return p
}

// pemPublicKey decodes the first "PUBLIC KEY" block of a PEM file, which
// must begin a line. A file that is not PEM is taken as DER by the caller.
func pemPublicKey(b []byte) ([]byte, bool) {
	const begin, end = "-----BEGIN PUBLIC KEY-----", "\n-----END PUBLIC KEY-----"
	i := bytes.Index(b, []byte(begin))
	if i < 0 || i > 0 && b[i-1] != '\n' {
		return nil, false
	}
	body := b[i+len(begin):]
	j := bytes.Index(body, []byte(end))
	if j < 0 {
		return nil, false
	}
	text := strings.NewReplacer("\r", "", "\n", "").Replace(string(body[:j]))
	der, err := base64.StdEncoding.DecodeString(text)
	if err != nil || len(der) == 0 {
		return nil, false
	}
	return der, true
}

// matches reports whether the DER SubjectPublicKeyInfo spki is pinned.
func (p *pinnedKey) matches(spki []byte) bool {
	if p.digests == nil {
		return p.der != nil && bytes.Equal(p.der, spki)
	}
	sum := sha256.Sum256(spki)
	got := base64.StdEncoding.EncodeToString(sum[:])
	for _, d := range p.digests {
		if d == got {
			return true
		}
	}
	return false
}

// verify is a tls.Config VerifyConnection: it runs after the usual checks
// of the chain (or in their place with http.sslVerify false, as curl
// checks the pin either way) and before a byte of the request is sent.
func (p *pinnedKey) verify(cs tls.ConnectionState) error {
	if len(cs.PeerCertificates) == 0 || !p.matches(cs.PeerCertificates[0].RawSubjectPublicKeyInfo) {
		return errPinMismatch
	}
	return nil
}
