package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// A fake git credential helper that answers with given logins and logs
// every request git makes of it.

// login is a user and password a credential helper answers with.
type login struct{ user, pass string }

// credentialHelper writes a git credential helper that answers "get" for a
// host (as git credential names it: with its port) with the login answers
// gives it, or with the one for "*" when there is one, and logs every
// request to <dir>/credential.log: the action, the lines git sent, then a
// blank line (see credentialLog).
func credentialHelper(t *testing.T, dir string, answers map[string]login) string {
	t.Helper()
	var cases strings.Builder
	hosts := make([]string, 0, len(answers))
	for h := range answers {
		hosts = append(hosts, h)
	}
	sort.Slice(hosts, func(i, j int) bool { return hosts[j] == "*" || hosts[i] != "*" && hosts[i] < hosts[j] })
	for _, h := range hosts {
		l := answers[h]
		if strings.ContainsAny(h+l.user+l.pass, "'\\\n") {
			t.Fatalf("a login the script cannot quote: %q %+v", h, l)
		}
		pattern := "'" + h + "'"
		if h == "*" {
			pattern = "*"
		}
		fmt.Fprintf(&cases, "%s) echo 'username=%s'; echo 'password=%s' ;;\n", pattern, l.user, l.pass)
	}
	path := filepath.Join(dir, "credential-helper")
	script := "#!/bin/sh\nlog='" + filepath.Join(dir, "credential.log") + "'\n" +
		"echo \"$1\" >>\"$log\"\nhost=\n" +
		"while IFS= read -r line && [ -n \"$line\" ]; do\n" +
		"\tprintf '%s\\n' \"$line\" >>\"$log\"\n" +
		"\tcase $line in host=*) host=${line#host=} ;; esac\n" +
		"done\necho >>\"$log\"\n" +
		"[ \"$1\" = get ] || exit 0\n" +
		"case $host in\n" + cases.String() + "esac\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// credentialRequest is one request the credential helper logged.
type credentialRequest struct {
	action string   // get, store or erase
	lines  []string // what git sent, one key=value a line
}

// credentialLog reads what the credential helper in dir was asked, and
// forgets it.
func credentialLog(t *testing.T, dir string) []credentialRequest {
	t.Helper()
	path := filepath.Join(dir, "credential.log")
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	var reqs []credentialRequest
	for _, block := range strings.Split(strings.TrimSuffix(string(b), "\n\n"), "\n\n") {
		if block == "" {
			continue
		}
		lines := strings.Split(block, "\n")
		reqs = append(reqs, credentialRequest{action: lines[0], lines: lines[1:]})
	}
	return reqs
}

// actions lists the actions of the requests, in order.
func actions(reqs []credentialRequest) string {
	var a []string
	for _, r := range reqs {
		a = append(a, r.action)
	}
	return strings.Join(a, " ")
}
