package remote

import (
	"bufio"
	"bytes"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/upstream"
	"github.com/git-durable/git-durable/object"
)

// refNames is a table of names with what git check-ref-format says of them
// (TestValidRefMatchesGit asks git itself).
var refNames = []struct {
	name string
	ok   bool
}{
	{"refs/heads/main", true},
	{"refs/tags/v1.0", true},
	{"refs/heads/a-b_c/d.e", true},
	{"refs/heads/ünïcode", true},
	{"refs/heads/a\nlock /tmp/x", false},
	{"refs/heads/a\rb", false},
	{"refs/heads/a\x7fb", false},
	{"refs/heads/a\x00b", false},
	{"refs/heads/a b", false},
	{"refs/heads/a~1", false},
	{"refs/heads/a^", false},
	{"refs/heads/a:b", false},
	{"refs/heads/a?", false},
	{"refs/heads/a*", false},
	{"refs/heads/a[b", false},
	{"refs/heads/a\\b", false},
	{"refs/heads/a..b", false},
	{"refs/heads/a@{1}", false},
	{"refs/heads/@", true},
	{"refs/heads/a@b", true},
	{"refs/heads/.hidden", false},
	{"refs/heads/a.lock", false},
	{"refs/heads/a.lock/b", false},
	{"refs/heads/a.", false},
	{"refs/heads/a/", false},
	{"refs/heads//a", false},
	{"refs/heads/-dash", true},
	{"refs/", false},
	{"refs", false},
	{"HEAD", false}, // not under refs/: HEAD is listed on its own
	{"heads/main", false},
	{"", false},
}

func TestValidRef(t *testing.T) {
	for _, tc := range refNames {
		if got := validRef(tc.name); got != tc.ok {
			t.Errorf("validRef(%q) = %v, want %v", tc.name, got, tc.ok)
		}
	}
}

// TestValidRefMatchesGit checks the table against git check-ref-format for
// every name git can take as an argument (no NUL).
func TestValidRefMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, tc := range refNames {
		if strings.ContainsRune(tc.name, 0) || !strings.HasPrefix(tc.name, "refs/") {
			continue
		}
		err := exec.Command("git", "check-ref-format", tc.name).Run()
		if git := err == nil; git != tc.ok {
			t.Errorf("git check-ref-format %q: valid=%v, table says %v", tc.name, git, tc.ok)
		}
	}
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain":              "plain",
		"tab\tand\nnewline":  "tab\tand\nnewline",
		"esc\x1b[2Jclear":    "esc?[2Jclear",
		"cr\rbell\a del\x7f": "cr?bell? del?",
		"ünï":                "ünï",
	} {
		if got := mask.Printable(in); got != want {
			t.Errorf("mask.Printable(%q) = %q, want %q", in, got, want)
		}
		var b bytes.Buffer
		if n, err := (mask.Writer{W: &b}).Write([]byte(in)); n != len(in) || err != nil || b.String() != want {
			t.Errorf("mask.Writer wrote %q (%d, %v), want %q", b.String(), n, err, want)
		}
	}
}

// helperLine is every line writeRefs may print: a ref (or a peeled tag),
// HEAD by id or as a symref.
var helperLine = regexp.MustCompile(`^(?:[0-9a-f]{40} (refs/[^\x00-\x20\x7f]+?)(?:\^\{\})?|[0-9a-f]{40} HEAD|@(refs/[^\x00-\x20\x7f]+) HEAD)$`)

// listOf decodes an advertisement into maps and returns what writeRefs
// prints and the names it refused.
func listOf(adv []byte) (string, []string, error) {
	ar, err := upstream.ReadAdvertisement(bufio.NewReader(bytes.NewReader(adv)), nil)
	if err != nil {
		return "", nil, err
	}
	var out bytes.Buffer
	var funny []string
	w := bufio.NewWriter(&out)
	writeRefs(w, ar, true, func(n string) { funny = append(funny, n) })
	w.Flush()
	return out.String(), funny, nil
}

// streamOf reads an advertisement with readAdvertisement and returns what
// a listWriter prints as it goes and the names it refused.
func streamOf(adv []byte) (string, []string, error) {
	var out bytes.Buffer
	var funny []string
	w := bufio.NewWriter(&out)
	lw := &listWriter{w: w, funny: func(n string) { funny = append(funny, n) }}
	_, err := upstream.ReadAdvertisement(bufio.NewReader(bytes.NewReader(adv)), lw)
	if err == nil {
		lw.end()
	}
	w.Flush()
	return out.String(), funny, err
}

const oid1 = "1111111111111111111111111111111111111111"

// TestListDropsFunnyRefs: an upstream that puts a newline in a ref name or
// a symref target cannot make the helper print a line of its choosing.
func TestListDropsFunnyRefs(t *testing.T) {
	adv := gittest.Advertisement(
		oid1+" refs/heads/a\nlock /tmp/victim\x00symref=HEAD:refs/heads/x\n\nlock /tmp/v2 multi_ack\n",
		oid1+" refs/heads/main\n",
		oid1+" refs/heads/b\n\n",
		oid1+" refs/tags/t..u\n",
		oid1+" refs/tags/ok\n",
		oid1+" refs/tags/ok^{}\n",
	)
	for name, decode := range map[string]func([]byte) (string, []string, error){"go-git": listOf, "stream": streamOf} {
		out, funny, err := decode(adv)
		if err != nil {
			t.Fatal(err)
		}
		want := oid1 + " refs/heads/main\n" + oid1 + " refs/tags/ok\n" + oid1 + " refs/tags/ok^{}\n"
		if out != want {
			t.Errorf("%s: list printed\n%q\nwant\n%q", name, out, want)
		}
		if len(funny) < 3 {
			t.Errorf("%s: warned of %q, want the newline names, the bad symref and t..u", name, funny)
		}
	}
}

// FuzzList: whatever the advertisement, every line writeRefs or a
// listWriter prints is a helper-protocol line naming a valid ref; there is
// at most one HEAD line, a symref HEAD names a ref of the list and, in a
// short list, comes first.
func FuzzList(f *testing.F) {
	f.Add(gittest.Advertisement(oid1+" refs/heads/main\x00symref=HEAD:refs/heads/main\n", oid1+" refs/tags/v^{}\n"))
	f.Add(gittest.Advertisement(oid1 + " refs/heads/a\nlock /x\x00symref=HEAD:refs/heads/\nb\n"))
	f.Add(gittest.Advertisement(oid1 + " capabilities^{}\x00symref=HEAD:refs/heads/a\n"))
	f.Add(gittest.Advertisement(oid1+" HEAD\x00symref=HEAD:refs/heads/gone\n", oid1+" refs/heads/a\n", oid1+" refs/heads/gone^{}\n"))
	f.Add(gittest.Advertisement(oid1+" refs/heads/z\x00symref=HEAD:refs/heads/z\n", oid1+" HEAD\n", oid1+" HEAD\n"))
	f.Fuzz(func(t *testing.T, adv []byte) {
		for _, decode := range []func([]byte) (string, []string, error){listOf, streamOf} {
			out, _, err := decode(adv) // a failure midway still leaves lines
			if at := checkList(t, out); at > 0 && err == nil && len(out) < maxHeld {
				t.Fatalf("HEAD is line %d of a short list:\n%s", at+1, out)
			}
		}
	})
}

// checkList fails t unless every line of out (what list printed) is a
// helper-protocol line naming a valid ref, with at most one HEAD, whose
// symref target, if it has one, is listed. It returns the index of the line
// of a HEAD with a symref, or -1.
func checkList(t *testing.T, out string) (symrefAt int) {
	t.Helper()
	heads, symref, listed := 0, "", map[string]bool{}
	symrefAt = -1
	for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if out == "" {
			break
		}
		m := helperLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("list printed %q", l)
		}
		name := m[1] + m[2]
		if name != "" && !validRef(name) {
			t.Fatalf("list printed the invalid name %q", name)
		}
		switch {
		case strings.HasSuffix(l, " HEAD"):
			heads++
			if symref = m[2]; symref != "" {
				symrefAt = i
			}
		case !strings.HasSuffix(l, "^{}"):
			listed[name] = true
		}
	}
	if heads > 1 || symref != "" && !listed[symref] {
		t.Fatalf("%d HEAD lines, a symref to %q, which is listed: %v:\n%s", heads, symref, listed[symref], out)
	}
	return symrefAt
}

// lsRefs builds a protocol v2 ls-refs answer of pkt-lines.
func lsRefs(t testing.TB, lines ...string) []byte { return gittest.Advertisement(lines...) }

// streamOfV2 reads an ls-refs answer and returns what a listWriter prints
// as it goes and the names it refused.
func streamOfV2(answer []byte) (string, []string, error) {
	var out bytes.Buffer
	var funny []string
	w := bufio.NewWriter(&out)
	lw := &listWriter{w: w, funny: func(n string) { funny = append(funny, n) }}
	err := upstream.ReadLsRefs(bufio.NewReader(bytes.NewReader(answer)), object.SHA1, lw)
	if err == nil {
		lw.end()
	}
	w.Flush()
	return out.String(), funny, err
}

// TestListDropsFunnyRefsV2: over protocol v2, a newline in a ref name or a
// symref target cannot make the helper print a line of its choosing
// either; HEAD goes first, as a symref where its target is listed.
func TestListDropsFunnyRefsV2(t *testing.T) {
	out, funny, err := streamOfV2(lsRefs(t,
		oid1+" HEAD symref-target:refs/heads/main\n",
		oid1+" refs/heads/a\nlock /tmp/victim symref-target:refs/heads/x\n\nlock\n",
		oid1+" refs/heads/main\n",
		oid1+" refs/heads/b\n\n",
		oid1+" refs/remotes/o/HEAD symref-target:refs/heads/\nx\n",
		oid1+" refs/tags/t..u\n",
		oid2+" refs/tags/ok peeled:"+oid1+"\n",
	))
	if err != nil {
		t.Fatal(err)
	}
	want := "@refs/heads/main HEAD\n" + oid1 + " refs/heads/main\n" + oid1 + " refs/remotes/o/HEAD\n" +
		oid2 + " refs/tags/ok\n" + oid1 + " refs/tags/ok^{}\n"
	if out != want {
		t.Errorf("list printed\n%q\nwant\n%q", out, want)
	}
	if len(funny) < 3 {
		t.Errorf("warned of %q, want the newline names and t..u", funny)
	}
}

// FuzzListV2: whatever the ls-refs answer, every line a listWriter prints
// is a helper-protocol line naming a valid ref; there is at most one HEAD
// line, and a symref HEAD names a ref of the list.
func FuzzListV2(f *testing.F) {
	f.Add(lsRefs(f, oid1+" HEAD symref-target:refs/heads/main\n", oid1+" refs/heads/main\n", oid2+" refs/tags/v peeled:"+oid1+"\n"))
	f.Add(lsRefs(f, oid1+" refs/heads/a\nlock /x symref-target:refs/heads/\nb\n"))
	f.Add(lsRefs(f, oid1+" refs/heads/z\n", oid1+" HEAD symref-target:refs/heads/z\n", oid1+" HEAD\n"))
	f.Add(lsRefs(f, "unborn HEAD symref-target:refs/heads/main\n", oid1+" HEAD symref-target:refs/heads/gone\n"))
	f.Fuzz(func(t *testing.T, answer []byte) {
		out, _, _ := streamOfV2(answer)
		checkList(t, out)
	})
}
