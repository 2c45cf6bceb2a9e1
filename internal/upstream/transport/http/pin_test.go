package http

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// spki returns the DER SubjectPublicKeyInfo of a new key and its
// "sha256//…" pin.
func spki(t *testing.T) ([]byte, string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(der)
	return der, "sha256//" + base64.StdEncoding.EncodeToString(sum[:])
}

// TestPinnedKey reads http.pinnedPubkey as curl does (the forms checked
// against git 2.39 by hand: a list joined by ";sha256//" and nothing else,
// a PEM or DER file, an unreadable or empty name matching nothing).
func TestPinnedKey(t *testing.T) {
	key, pin := spki(t)
	other, otherPin := spki(t)
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pemFile := write("key.pem", append([]byte("comment\r\n"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: key})...))
	derFile := write("key.der", key)
	otherDER := write("other.der", other)
	indented := write("indented.pem", append([]byte(" "), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: key})...))
	for _, tc := range []struct {
		value string
		ok    bool
	}{
		{pin, true},
		{otherPin, false},
		{otherPin + ";" + pin, true},
		{otherPin + "; " + pin, false}, // curl splits at ";sha256//" only
		{pin + ";" + otherPin, true},
		{"sha256//", false},
		{"sha256//" + pin[len("sha256//"):] + "=", false},
		{pemFile, true},
		{derFile, true},
		{otherDER, false},
		{indented, false}, // the PEM block must begin a line
		{filepath.Join(dir, "missing"), false},
		{"", false},
		{derFile + ";" + pin, false}, // a file name, which does not exist
	} {
		p := newPinnedKey(tc.value)
		if got := p.matches(key); got != tc.ok {
			t.Errorf("%q: matches %v, want %v", tc.value, got, tc.ok)
		}
		leaf := &x509.Certificate{RawSubjectPublicKeyInfo: key}
		err := p.verify(tls.ConnectionState{PeerCertificates: []*x509.Certificate{leaf}})
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, errPinMismatch) {
			t.Errorf("%q: verify %v", tc.value, err)
		}
	}
	if err := newPinnedKey(pin).verify(tls.ConnectionState{}); !errors.Is(err, errPinMismatch) {
		t.Errorf("no certificate: %v", err)
	}
}
