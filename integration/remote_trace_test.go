package integration

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// traceLine is a line of git's GIT_TRACE_PACKET: the time, the source
// line, padded to column 40, "packet:", the identity in twelve columns and
// the direction.
var traceLine = regexp.MustCompile(`^\d\d:\d\d:\d\d\.\d{6} \S+:\d+ +packet: +(\S+)([<>]) (.*)$`)

// packetLines are the payloads a trace file holds for the identities,
// each after its direction ("> want …", "< ACK …"); a line not in git's
// format fails the test.
func packetLines(t *testing.T, path string, identities ...string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(string(readFile(t, path)), "\n"), "\n") {
		m := traceLine.FindStringSubmatch(l)
		if m == nil || strings.Index(l, "packet:") != 40 {
			t.Fatalf("not a line of git's packet trace: %q", l)
		}
		if contains(identities, m[1]) {
			out = append(out, m[2]+" "+m[3])
		}
	}
	return out
}

// TestRemotePacketTrace: under GIT_TRACE_PACKET the helper writes its
// dialogue with the upstream in git's format beside git's own lines, over
// every transport and both protocol versions: the advertisement it read,
// the new tip it wanted, the haves it sent and the upstream's answer, the
// pack as "PACK ...". Plain git's fetch, traced the same way, wants the
// same tip, and over git:// opens with the same request line. (Before:
// nothing of the helper's dialogue was traced; then not git://'s request
// line.)
func TestRemotePacketTrace(t *testing.T) {
	forKinds(t, func(t *testing.T, env []string, up upstream) {
		work := t.TempDir()
		ours, theirs := filepath.Join(work, "ours"), filepath.Join(work, "theirs")
		mustRun(t, gittest.Exec(t, env, work, nil, "git", "clone", "-q", "durable::"+up.url, ours), "clone")
		gittest.Git(t, env, work, "clone", "-q", up.plain, theirs)
		advance(t, env, up.dir, 2, "")
		tip := strings.TrimSpace(gittest.Git(t, env, up.dir, "rev-parse", "main"))

		trace := filepath.Join(work, "ours.trace")
		mustRun(t, gittest.Exec(t, append(env, "GIT_TRACE_PACKET="+trace), ours, nil, "git", "fetch", "-q"), "fetch")
		lines := packetLines(t, trace, "durable")
		text := strings.Join(lines, "\n") + "\n"
		want := regexp.MustCompile(`(?m)^> want ` + tip + `( |$)`)
		answered := strings.Contains(text, "< ACK ") || strings.Contains(text, "< NAK\n") || strings.Contains(text, "< acknowledgments\n")
		if !want.MatchString(text) || !strings.Contains(text, "> have ") || !answered || !strings.Contains(text, "< PACK ...\n") {
			t.Errorf("the helper's trace lacks the want of %s, its haves, the answer or the pack:\n%.3000s", tip, text)
		}
		if v2 := strings.Contains(text, "< version 2\n") && strings.Contains(text, "> command=fetch\n"); v2 != (protocolOf(t) == "2") {
			t.Errorf("protocol v2 in the trace: %v, want protocol %s:\n%.3000s", v2, protocolOf(t), text)
		}

		gitTrace := filepath.Join(work, "git.trace")
		mustRun(t, gittest.Exec(t, append(env, "GIT_TRACE_PACKET="+gitTrace), theirs, nil, "git", "fetch", "-q"), "plain fetch")
		// git fetch's lines, or git fetch-pack's where remote-curl runs
		// it (HTTP, protocol v0).
		gitText := strings.Join(packetLines(t, gitTrace, "fetch", "fetch-pack"), "\n") + "\n"
		if !want.MatchString(gitText) {
			t.Errorf("plain git's trace lacks the want of %s:\n%.3000s", tip, gitText)
		}
		// git://'s request line, the first thing either sends.
		if strings.HasPrefix(up.url, "git://") {
			first := func(text string) string { l, _, _ := strings.Cut(text, "\n"); return l }
			if a, b := first(text), first(gitText); a != b || !strings.HasPrefix(a, "> git-upload-pack /") {
				t.Errorf("the request line: ours %q, git's %q", a, b)
			}
		}
	})
}

// TestRemotePacketTraceSecrets: the password of an address is never
// written to the trace, not even where the upstream's own lines carry it
// (a branch named after it): git's "<redacted>" stands in its place.
func TestRemotePacketTraceSecrets(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	const secret = "pw7e1b9c"
	gittest.Git(t, env, up, "branch", secret, "main")
	web := startHTTP(t, httpBackend(t, env, base))
	url := strings.Replace(web, "http://", "http://user:"+secret+"@", 1) + "/up.git"
	trace := filepath.Join(base, "trace")
	c := gittest.Exec(t, append(env, "GIT_TRACE_PACKET="+trace), base, nil, "git", "ls-remote", "durable::"+url)
	mustRun(t, c, "ls-remote")
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), secret) || !strings.Contains(string(b), "refs/heads/<redacted>") {
		t.Errorf("the trace shows the password, or not the line that carried it:\n%s", b)
	}
}
