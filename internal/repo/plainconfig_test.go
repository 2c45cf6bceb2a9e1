package repo

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	dir := t.TempDir()
	mirror := filepath.Join(dir, "m.git")
	for _, args := range [][]string{{"init", "-q", "--bare", mirror}, {"-C", mirror, "config", "remote.origin.url", "https://h/r.git"},
		{"-C", mirror, "config", "remote.origin.fetch", "+refs/*:refs/*"}, {"-C", mirror, "config", "remote.origin.mirror", "true"}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	written, err := os.ReadFile(filepath.Join(mirror, "config"))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(38))
	files := []string{string(written), "[core]\n\tbare = true\n[remote \"origin\"]\n\turl = /x\n"}
	for len(files) < 600 {
		files = append(files, randomConfig(r))
	}
	read, refused := 0, 0
	for i, text := range files {
		path := filepath.Join(dir, fmt.Sprint(i))
		if err := os.WriteFile(path, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
		c, ok := plainFile([]byte(text), "command", nil)
		if i < 2 && !ok {
			t.Errorf("git's own file not read:\n%s", text)
		}
		if !ok {
			continue
		}
		read++
		cmd := exec.Command("git", "config", "--list", "-z", "--file", path)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil && !(len(c) == 0 && len(out) == 0 && stderr.Len() == 0) {
			refused++
			t.Errorf("read, and git refuses it (%v, %s):\n%q", err, stderr.String(), text)
			continue
		}
		if got := listed(c); got != string(out) {
			t.Errorf("file %q:\nours %q\ngit  %q", text, got, out)
		}
	}
	if read < 150 || read == len(files) {
		t.Errorf("read %d of %d files: the table no longer tries both sides", read, len(files))
	}
	t.Logf("read %d of %d files, each as git does", read, len(files))
}

// sealedRepo makes a bare repository and a home with both global files,
// and points GIT_DIR, HOME and XDG_CONFIG_HOME at them.
func sealedRepo(t *testing.T) (dir, home string) {
	t.Helper()
	base := t.TempDir()
	dir, home = filepath.Join(base, "r.git"), filepath.Join(base, "home")
	if out, err := exec.Command("git", "init", "-q", "--bare", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	write(t, filepath.Join(home, ".gitconfig"), "[user]\n\tname = Home\n[fetch]\n\tnegotiationAlgorithm = skipping\n")
	write(t, filepath.Join(home, "xdg", "git", "config"), "[user]\n\tname = Xdg\n\temail\n")
	write(t, filepath.Join(dir, "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = true\n[remote \"origin\"]\n\turl = https://h/r.git\n\tfetch = +refs/*:refs/*\n\tmirror = true\n")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_DIR", dir)
	return dir, home
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
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
		c, ok := plainConfig(dir)
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
			write(t, filepath.Join(home, "inc"), "[user]\n\tname = Included\n")
			write(t, filepath.Join(home, ".gitconfig"), "[include]\n\tpath = "+filepath.Join(home, "inc")+"\n")
		}},
		{"includeIf", func(t *testing.T, dir, home string) {
			write(t, filepath.Join(home, "inc"), "[user]\n\tname = Included\n")
			appendTo(t, filepath.Join(dir, "config"), "[includeIf \"gitdir:"+dir+"\"]\n\tpath = "+filepath.Join(home, "inc")+"\n")
		}},
		{"extensions", func(t *testing.T, dir, _ string) {
			write(t, filepath.Join(dir, "config"), "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = sha1\n")
		}},
		{"a quoted value", func(t *testing.T, dir, _ string) {
			appendTo(t, filepath.Join(dir, "config"), "[user]\n\tname = \"Q # R\"\n")
		}},
		{"a continued value", func(t *testing.T, _, home string) {
			appendTo(t, filepath.Join(home, ".gitconfig"), "[user]\n\temail = a\\\nb\n")
		}},
		{"a global file that is a directory", func(t *testing.T, _, home string) {
			os.Remove(filepath.Join(home, ".gitconfig"))
			os.Mkdir(filepath.Join(home, ".gitconfig"), 0o777)
		}},
		{"a file over 1 MiB", func(t *testing.T, _, home string) {
			appendTo(t, filepath.Join(home, ".gitconfig"), strings.Repeat("# padding\n", 110000))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, home := sealedRepo(t)
			tc.set(t, dir, home)
			if c, ok := plainConfig(dir); ok {
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

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}
