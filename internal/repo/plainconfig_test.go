package repo

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// listed formats entries as `git config --list -z` prints them.
func listed(c Config) string {
	var b strings.Builder
	for _, e := range c {
		b.WriteString(e.Key)
		if !e.NoValue {
			b.WriteString("\n" + e.Value)
		}
		b.WriteByte(0)
	}
	return b.String()
}

// plainFragments build the files of TestPlainFileAgainstGit: git's
// writing (good) and its near misses (odd), which a line takes one time
// in eight.
var plainFragments = struct{ indent, headers, names, seps, values, odd []string }{
	indent:  []string{"", "", " ", "\t", "\t\t"},
	headers: []string{"[core]", "[Core]", `[remote "origin"]`, `[remote "Or Igin"]`, "[remote\t\"x\"]", `[remote "a]b"]`, "[core] # c", "[9x]", "[x-y]", `[remote ""]`, "[core]\t;c", `[remote  "two"]`},
	names:   []string{"bare", "Bare", "x-y", "url", "fetch", "mirror", "a9"},
	seps:    []string{"", " = ", "=", " =", "= ", "\t=\t", " ", "  =  "},
	values:  []string{"", "true", "a b", "a  b", "x # c", "x ; c", "ü", "x ", " x", "=x", "+refs/*:refs/*", "https://h/p?q=1", "a#b", "x\t"},
	odd: []string{"# comment", "; c", "", "junk", "x\r", "\xef\xbb\xbf[core]", "#\"\\", "[core]\x00", "[a.b]", "[ core]", "[core] x = 1",
		"[include]", "[includeIf \"gitdir:/x\"]", "[]", "[core", `[remote "a\"b"]`, `[remote "x" ]`, `[remote "x"]x`, "9x", "-x", "a_b", "a.b",
		"x = a\tb", `x = "q"`, `x = a\`, `x = a\nb`, "x = \"a # b\"", "x \u00e9 = 1"},
}

// randomConfig returns a file of a few lines made of plainFragments.
func randomConfig(r *rand.Rand) string {
	f := plainFragments
	pick := func(l []string) string { return l[r.Intn(len(l))] }
	var b strings.Builder
	if r.Intn(10) > 0 {
		b.WriteString(pick(f.headers) + "\n")
	}
	for n := r.Intn(7); n >= 0; n-- {
		switch r.Intn(16) {
		case 0, 1:
			b.WriteString(pick(f.indent) + pick(f.odd) + "\n")
		case 2:
			b.WriteString(pick(f.indent) + pick(f.headers) + "\n")
		default:
			b.WriteString(pick(f.indent) + pick(f.names) + pick(f.seps))
			if r.Intn(4) > 0 {
				b.WriteString(pick(f.values))
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestPlainFileAgainstGit: every file plainFile reads, it reads as `git
// config --list -z --file` does, entry for entry; the files git writes
// (a mirror's, a clone's) it reads. 600 files of git's forms and their
// near misses, from a fixed seed.
func TestPlainFileAgainstGit(t *testing.T) {
	env := gittest.Env(t)
	dir, mirror := t.TempDir(), gittest.Init(t, env, true, "")
	gittest.Git(t, env, mirror, "config", "remote.origin.url", "https://h/r.git")
	gittest.Git(t, env, mirror, "config", "remote.origin.fetch", "+refs/*:refs/*")
	gittest.Git(t, env, mirror, "config", "remote.origin.mirror", "true")
	r := rand.New(rand.NewSource(38))
	files := []string{readFile(t, filepath.Join(mirror, "config")), "[core]\n\tbare = true\n[remote \"origin\"]\n\turl = /x\n"}
	for len(files) < 600 {
		files = append(files, randomConfig(r))
	}
	read := 0
	for i, text := range files {
		gittest.WriteFile(t, dir, fmt.Sprint(i), text)
		c, ok := plainFile([]byte(text), "command", nil)
		if i < 2 && !ok {
			t.Errorf("git's own file not read:\n%s", text)
		}
		if !ok {
			continue
		}
		read++
		g := gittest.Exec(t, env, dir, nil, "git", "config", "--list", "-z", "--file", fmt.Sprint(i))
		if g.Code != 0 && !(len(c) == 0 && len(g.Stdout) == 0 && len(g.Stderr) == 0) {
			t.Errorf("read, and git refuses it (exit %d, %s):\n%q", g.Code, g.Stderr, text)
			continue
		}
		if got := listed(c); got != string(g.Stdout) {
			t.Errorf("file %q:\nours %q\ngit  %q", text, got, g.Stdout)
		}
	}
	if read < 150 || read == len(files) {
		t.Errorf("read %d of %d files: the table no longer tries both sides", read, len(files))
	}
	t.Logf("read %d of %d files, each as git does", read, len(files))
}

// sealedRepo makes a bare repository in the sealed environment (sealed),
// with both global files in its home, and points GIT_DIR at it.
func sealedRepo(t *testing.T) (dir, home string) {
	t.Helper()
	env := sealed(t)
	dir, home = gittest.Init(t, env, true, ""), os.Getenv("HOME")
	gittest.WriteFile(t, home, ".gitconfig", "[user]\n\tname = Home\n[fetch]\n\tnegotiationAlgorithm = skipping\n")
	gittest.WriteFile(t, os.Getenv("XDG_CONFIG_HOME"), "git/config", "[user]\n\tname = Xdg\n\temail\n")
	gittest.WriteFile(t, dir, "config", "[core]\n\trepositoryformatversion = 0\n\tbare = true\n[remote \"origin\"]\n\turl = https://h/r.git\n\tfetch = +refs/*:refs/*\n\tmirror = true\n")
	t.Setenv("GIT_DIR", dir)
	return dir, home
}

// scoped formats entries with their scopes.
func scoped(c Config) string {
	var b strings.Builder
	for _, e := range c {
		fmt.Fprintf(&b, "%s %s=%s %v\n", e.Scope, e.Key, e.Value, e.NoValue)
	}
	return b.String()
}

// TestPlainConfigScopes: the scopes read without git are git config
// --list --show-scope's, in its order: the XDG file, ~/.gitconfig, the
// repository's; with the system file where the git on PATH is one
// installed under /usr.
func TestPlainConfigScopes(t *testing.T) {
	dir, _ := sealedRepo(t)
	same := func(t *testing.T) {
		t.Helper()
		c, ok := plainConfig(dir, false)
		if !ok {
			t.Fatal("declined")
		}
		g, err := loadGit(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		if scoped(c) != scoped(g) {
			t.Errorf("ours:\n%s\ngit:\n%s", scoped(c), scoped(g))
		}
	}
	t.Run("no system", same)
	t.Run("system", func(t *testing.T) {
		out, err := exec.Command("git", "--exec-path").Output()
		if exec := strings.TrimSpace(string(out)); err != nil || exec != "/usr/lib/git-core" && exec != "/usr/libexec/git-core" {
			t.Skipf("the git on PATH is not installed under /usr (%q)", exec)
		}
		t.Setenv("PATH", strings.TrimSpace(string(out))+string(os.PathListSeparator)+os.Getenv("PATH"))
		os.Unsetenv("GIT_CONFIG_NOSYSTEM")
		same(t)
	})
}

// TestPlainConfigDeclines: each case where git's reading is not certain
// is left to git — and Load then says what git says.
func TestPlainConfigDeclines(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(t *testing.T, dir, home string)
	}{
		{"git -c", func(t *testing.T, _, _ string) { t.Setenv("GIT_CONFIG_PARAMETERS", "'user.name'='C'") }},
		{"GIT_CONFIG_COUNT", func(t *testing.T, _, _ string) {
			t.Setenv("GIT_CONFIG_COUNT", "1")
			t.Setenv("GIT_CONFIG_KEY_0", "user.name")
			t.Setenv("GIT_CONFIG_VALUE_0", "K")
		}},
		{"GIT_CONFIG_GLOBAL", func(t *testing.T, _, home string) { t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig")) }},
		{"GIT_CONFIG_SYSTEM", func(t *testing.T, _, home string) { t.Setenv("GIT_CONFIG_SYSTEM", filepath.Join(home, ".gitconfig")) }},
		{"GIT_CONFIG_NOSYSTEM not a boolean", func(t *testing.T, _, _ string) { t.Setenv("GIT_CONFIG_NOSYSTEM", "maybe") }},
		{"a git not under /usr", func(t *testing.T, _, _ string) {
			os.Unsetenv("GIT_CONFIG_NOSYSTEM")
			t.Setenv("PATH", "/opt/git/libexec/git-core"+string(os.PathListSeparator)+os.Getenv("PATH"))
		}},
		{"include", func(t *testing.T, _, home string) {
			gittest.WriteFile(t, home, "inc", "[user]\n\tname = Included\n")
			gittest.WriteFile(t, home, ".gitconfig", "[include]\n\tpath = "+filepath.Join(home, "inc")+"\n")
		}},
		{"includeIf", func(t *testing.T, dir, home string) {
			gittest.WriteFile(t, home, "inc", "[user]\n\tname = Included\n")
			appendTo(t, dir, "config", "[includeIf \"gitdir:"+dir+"\"]\n\tpath = "+filepath.Join(home, "inc")+"\n")
		}},
		{"extensions", func(t *testing.T, dir, _ string) {
			gittest.WriteFile(t, dir, "config", "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = sha1\n")
		}},
		{"a quoted value", func(t *testing.T, dir, _ string) {
			appendTo(t, dir, "config", "[user]\n\tname = \"Q # R\"\n")
		}},
		{"a continued value", func(t *testing.T, _, home string) {
			appendTo(t, home, ".gitconfig", "[user]\n\temail = a\\\nb\n")
		}},
		{"a global file that is a directory", func(t *testing.T, _, home string) {
			os.Remove(filepath.Join(home, ".gitconfig"))
			os.Mkdir(filepath.Join(home, ".gitconfig"), 0o777)
		}},
		{"a file over 1 MiB", func(t *testing.T, _, home string) {
			appendTo(t, home, ".gitconfig", strings.Repeat("# padding\n", 110000))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, home := sealedRepo(t)
			tc.set(t, dir, home)
			if c, ok := plainConfig(dir, false); ok {
				t.Fatalf("read without git:\n%s", scoped(c))
			}
			c, cerr := Load(context.Background(), "")
			g, gerr := loadGit(context.Background(), "")
			if scoped(c) != scoped(g) || fmt.Sprint(cerr) != fmt.Sprint(gerr) {
				t.Errorf("Load: %v\n%s\ngit: %v\n%s", cerr, scoped(c), gerr, scoped(g))
			}
		})
	}
}

// appendTo adds text at the end of the file name below dir.
func appendTo(t *testing.T, dir, name, text string) {
	t.Helper()
	gittest.WriteFile(t, dir, name, readFile(t, filepath.Join(dir, name))+text)
}

// TestPlainConfigStarted: a SHA-256 repository's configuration (format 1,
// extensions.objectformat) is left to git config by Load, and read
// without git, as git config reads it, for a command git started there
// (LoadStarted); an extension git does not know is left to git either way.
func TestPlainConfigStarted(t *testing.T) {
	env := sealed(t)
	dir := gittest.Init(t, env, true, "sha256")
	t.Setenv("GIT_DIR", dir)
	if _, ok := plainConfig(dir, false); ok {
		t.Error("format 1 read without git by Load")
	}
	c, ok := plainConfig(dir, true)
	if !ok {
		t.Fatal("declined for a command git started")
	}
	g, err := loadGit(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if scoped(c) != scoped(g) || !strings.Contains(scoped(c), "local extensions.objectformat=sha256") {
		t.Errorf("ours:\n%s\ngit:\n%s", scoped(c), scoped(g))
	}
	gittest.Git(t, env, dir, "config", "extensions.worktreeConfig", "true")
	if _, ok := plainConfig(dir, true); ok {
		t.Error("another extension read without git")
	}
}
