package integration

import (
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// The victim's login: a credential helper holds it for victim.example,
// and no server of the test may ever see it.
const (
	victimHost = "victim.example"
	victimPass = "pw-for-victim-only-59"
)

// TestRemoteCredentialInjection: the credential protocol is line based, so
// a URL whose user, password, host or path decodes to a newline (or a
// carriage return, which some credential helpers take as one, or a NUL)
// would add a line of its own to what git credential is asked:
// "username=x" and "host=victim.example", and the credential helper
// answers with the victim's password, which goes to the server. The
// helper must refuse such a URL before anything is asked or sent, and a
// redirect to such a place, as git's credential_from_url does. Plain git
// on the same server is the oracle and refuses every case, though not
// always as early or in the same words: a carriage return only when it
// writes the user to the credential helper (after a first request), a
// "%00" (which git does not decode) and a newline before a ':' of the host
// (which git's url_decode_mem leaves undecoded) only when curl refuses the
// URL. The helper refuses all of them before anything is sent.
func TestRemoteCredentialInjection(t *testing.T) {
	for _, tc := range []struct {
		name, url string // {A}: A's host and port
		mode      string // the redirector's
		want      string // our refusal, after "warning: url contains a "
		gitSays   string // plain git's refusal; "": git fetches
	}{
		{"user-lf", "http://x%0ahost=victim.example@{A}/up.git", "", "newline in its username component", "newline in its username component"},
		{"user-cr", "http://x%0dhost=victim.example@{A}/up.git", "", "carriage return in its username component", "credential value for username contains carriage return"},
		{"user-nul", "http://x%00host=victim.example@{A}/up.git", "", "NUL in its username component", "URL using bad/illegal format"},
		{"password-lf", "http://alice:x%0ahost=victim.example@{A}/up.git", "", "newline in its password component", "newline in its password component"},
		{"host-lf", "http://victim.example%0a{A}/up.git", "", "newline in its host component", "URL using bad/illegal format"},
		{"path-lf", "http://{A}/up.git%0ahost=victim.example", "", "newline in its path component", "newline in its path component"},
		{"redirect-lf", "http://{A}/up.git", "newline", "newline in its path component", "newline in its path component"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := env(t)
			base := t.TempDir()
			newUpstream(t, env, base, "up.git")
			h := startRedirecting(t, env, base, tc.mode)
			work := t.TempDir()
			hostA := strings.TrimPrefix(h.a, "http://")
			gittest.Git(t, env, "", "config", "--global", "credential.helper", credentialHelper(t, work, map[string]login{
				hostA:      {hostileUser, hostilePass},
				victimHost: {"victim", victimPass},
			}))
			url := strings.ReplaceAll(tc.url, "{A}", hostA)

			plain := fetchInto(t, env, filepath.Join(work, "plain"), url, false, "")
			plainHops, plainAsked := h.take(), credentialLog(t, work)
			t.Logf("plain git: exit %d, requests %+v, credential requests %+v\n%s", plain.Code, plainHops, plainAsked, plain.Stderr)
			noVictim(t, "plain git", plainHops, plainAsked)
			switch {
			case tc.gitSays == "" && plain.Code != 0:
				t.Errorf("plain git failed; the test says git fetches")
			case tc.gitSays != "" && (plain.Code == 0 || !strings.Contains(string(plain.Stderr), tc.gitSays)):
				t.Errorf("plain git: exit %d, want a refusal with %q", plain.Code, tc.gitSays)
			}

			ours := filepath.Join(work, "ours")
			c := fetchInto(t, env, ours, url, true, "")
			hops, asked := h.take(), credentialLog(t, work)
			noVictim(t, "ours", hops, asked)
			failed(t, env, c, ours, "HEAD -> refs/heads/main\n", "fatal: credential url cannot be parsed: ", hostilePass, victimPass)
			if !strings.Contains(string(c.Stderr), "warning: url contains a "+tc.want+": ") {
				t.Errorf("no warning that the url contains a %s:\n%s", tc.want, c.Stderr)
			}
			if len(asked) != 0 {
				t.Errorf("the credential helper was asked: %+v", asked)
			}
			// Nothing is sent for a URL refused as given; after a
			// redirect, nothing follows the redirected request.
			want := 0
			if tc.mode == "newline" {
				want = 2
			}
			if len(hops) != want {
				t.Errorf("%d requests, want %d: %+v", len(hops), want, hops)
			}
		})
	}
}

// noVictim fails if a server saw the victim's password, or if the
// credential helper was asked about the victim's host.
func noVictim(t *testing.T, who string, hops []hop, asked []credentialRequest) {
	t.Helper()
	for _, p := range hops {
		if b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(p.auth, "Basic ")); err == nil && strings.Contains(string(b), victimPass) {
			t.Errorf("%s: server %s got the victim's password: %+v", who, p.server, p)
		}
	}
	for _, r := range asked {
		for _, l := range r.lines {
			if l == "host="+victimHost {
				t.Errorf("%s: the credential helper was asked about %s: %+v", who, victimHost, r)
			}
		}
	}
}
