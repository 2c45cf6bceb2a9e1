package repo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestFromEnvMatchesRevParse checks the answer worked out for an explicit
// GIT_DIR against git rev-parse's in the same directory and environment,
// and that the layouts it must leave to git (gitfile, linked worktree,
// an object format set by configuration) are left to it.
func TestFromEnvMatchesRevParse(t *testing.T) {
	env := sealed(t)
	bare := gittest.Init(t, env, true, "")
	work := gittest.Init(t, env, false, "")
	sha256 := gittest.Init(t, env, true, "sha256")
	gittest.Git(t, env, work, "commit", "-q", "--allow-empty", "-m", "c")
	linked := filepath.Join(t.TempDir(), "wt")
	gittest.Git(t, env, work, "worktree", "add", "-q", linked)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(bare, link); err != nil {
		t.Fatal(err)
	}
	parent := filepath.Dir(bare)
	altObjects := filepath.Join(t.TempDir(), "objs")
	os.Mkdir(altObjects, 0o755)

	tests := []struct {
		name, cwd, gitDir, objects string
		fast                       bool
	}{
		{"dot", bare, ".", "", true},
		{"absolute", parent, bare, "", true},
		{"relative", bare, "../" + filepath.Base(bare), "", false},
		{"relative down", parent, filepath.Base(bare), "", true},
		{"trailing slash", parent, bare + "/", "", true},
		{"symlink", parent, link, "", true},
		{"object directory", bare, ".", altObjects, true},
		{"relative object directory", bare, ".", "objects", false},
		{"work tree's .git", work, ".git", "", true},
		{"gitfile", linked, ".git", "", false},
		{"linked worktree's dir", work, ".git/worktrees/wt", "", false},
		{"sha256", sha256, ".", "", true},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(tt.cwd)
			t.Setenv("GIT_DIR", tt.gitDir)
			if tt.objects != "" {
				t.Setenv("GIT_OBJECT_DIRECTORY", tt.objects)
			}
			want, err := find(ctx)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := Load(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			dir, ok := explicitDir()
			var got *Repo
			if ok {
				got, ok = fromEnv(dir, cfg)
			}
			if ok != tt.fast {
				t.Fatalf("worked out without git: %v, want %v", ok, tt.fast)
			}
			if !ok {
				return
			}
			if got.GitDir != want.GitDir || got.ObjectDir != want.ObjectDir || got.Format != want.Format {
				t.Errorf("got %+v, git rev-parse says %+v", *got, *want)
			}
			r, err := Discover(ctx)
			if err != nil || r.GitDir != want.GitDir || r.ObjectDir != want.ObjectDir {
				t.Errorf("Discover: %+v, %v", r, err)
			}
		})
	}
}

// TestExplicitDirNotARepository checks that an explicit GIT_DIR that is
// not a repository fails with git's own words.
func TestExplicitDirNotARepository(t *testing.T) {
	for name, head := range map[string]string{"empty": "", "bad HEAD": "garbage\n", "no refs": "ref: refs/heads/main\n"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if head != "" {
				os.Mkdir(filepath.Join(dir, "objects"), 0o755)
				os.WriteFile(filepath.Join(dir, "HEAD"), []byte(head), 0o644)
				if name != "no refs" {
					os.Mkdir(filepath.Join(dir, "refs"), 0o755)
				}
			}
			t.Setenv("GIT_DIR", dir)
			_, err := Discover(context.Background())
			_, want := find(context.Background())
			if err == nil || want == nil || err.Error() != want.Error() || !strings.Contains(err.Error(), "not a git repository") {
				t.Fatalf("err %v, git rev-parse: %v", err, want)
			}
		})
	}
}

// TestExplicitDirRefusedFormat checks repositories whose format git
// refuses — and whose own configuration it then leaves out of `git config
// --list` — are left to git rev-parse and fail with its words.
func TestExplicitDirRefusedFormat(t *testing.T) {
	env := sealed(t)
	for name, settings := range map[string][][2]string{
		"unknown extension": {{"core.repositoryformatversion", "1"}, {"extensions.refStorage", "reftable"}},
		"version 5":         {{"core.repositoryformatversion", "5"}},
	} {
		t.Run(name, func(t *testing.T) {
			dir := gittest.Init(t, env, true, "")
			for _, kv := range settings {
				gittest.Git(t, env, dir, "config", kv[0], kv[1])
			}
			t.Chdir(dir)
			t.Setenv("GIT_DIR", ".")
			if d, ok := explicitDir(); ok && formatZero(d) {
				t.Fatal("the format was taken as 0")
			}
			_, err := Discover(context.Background())
			_, want := find(context.Background())
			if err == nil || want == nil || err.Error() != want.Error() {
				t.Fatalf("err %v, git rev-parse: %v", err, want)
			}
		})
	}
}

// TestFormatZero checks the plain reading of a repository's config file.
func TestFormatZero(t *testing.T) {
	for text, want := range map[string]bool{
		"[core]\n\trepositoryformatversion = 0\n\tbare = true\n":                                     true,
		"[Core]\n\tRepositoryFormatVersion=0\n":                                                      true,
		"[core]\n\tbare = true\n":                                                                    false,
		"[core]\n\trepositoryformatversion = 1\n":                                                    false,
		"[core]\n\trepositoryformatversion = 0\n[extensions]\n\tobjectformat = sha1\n":               false,
		"[core]\n\trepositoryformatversion = 0\n[extensions \"x\"]\n":                                false,
		"[core] repositoryformatversion = 1\n":                                                       false,
		"[core]\n\trepositoryformatversion = 0 # said twice\n":                                       false,
		"[remote \"origin\"]\n\trepositoryformatversion = 0\n":                                       false,
		"\xef\xbb\xbf[extensions]\n\tobjectformat = sha256\n[core]\n\trepositoryformatversion = 0\n": false,
		"[core]\n\trepositoryformatversion = 0\n\tnote = x\\\n[x]\n":                                 false,
		"[core \"y\"]\n\trepositoryformatversion = 0\n":                                              false,
		"[core]\n\trepositoryformatversion = 0\n[extensions\t\"x\"]\n\tfoo = 1\n":                    false,
		"[core]\n\trepositoryformatversion = 0\n[Extensions]\n":                                      false,
		"[core]\n\trepositoryformatversion = 0\n[core] bare = true\n":                                false,
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "config"), []byte(text), 0o644)
		if got := formatZero(dir); got != want {
			t.Errorf("%q: %v, want %v", text, got, want)
		}
	}
}

// TestPlainFormat checks the plain reading of format 1 and its two
// extensions.
func TestPlainFormat(t *testing.T) {
	for text, want := range map[string]string{
		"[core]\n\trepositoryformatversion = 0\n":                                                               "0 map[]",
		"[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectFormat = sha256\n":                        "1 map[objectformat:sha256]",
		"[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefstorage = reftable\n":                        "1 map[refstorage:reftable]",
		"[extensions]\n\trefStorage = Reftable\n\tobjectformat = sha1\n[core]\n\trepositoryformatversion = 1\n": "1 map[objectformat:sha1 refstorage:reftable]",
		"[core]\n\trepositoryformatversion = 1\n[extensions]\n\tworktreeconfig = true\n":                        "declined",
		"[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefstorage = reftable # x\n":                    "declined",
		"[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefstorage = files\n\trefstorage = reftable\n":  "declined",
		"[core]\n\trepositoryformatversion = 0\n[extensions]\n\tobjectformat = sha256\n":                        "declined",
		"[core]\n\trepositoryformatversion = 2\n":                                                               "declined",
		"[core]\n\trepositoryformatversion = 1\n[extensions \"x\"]\n\trefstorage = reftable\n":                  "declined",
		"[core]\n\trepositoryformatversion = 1\n\trepositoryformatversion = 0\n":                                "declined",
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "config"), []byte(text), 0o644)
		got := "declined"
		if v, ext, ok := plainFormat(dir); ok {
			got = fmt.Sprint(v, " ", ext)
		}
		if got != want {
			t.Errorf("%q: %s, want %s", text, got, want)
		}
	}
}

// TestExplicitDirDeclines checks the environments left to git rev-parse.
func TestExplicitDirDeclines(t *testing.T) {
	env := gittest.Env(t)
	dir := gittest.Init(t, env, true, "")
	t.Chdir(dir)
	for _, kv := range [][2]string{{"GIT_WORK_TREE", dir}, {"GIT_COMMON_DIR", dir}, {"GIT_OBJECT_DIRECTORY", ""}, {"GIT_OBJECT_DIRECTORY", "objects"}} {
		t.Run(kv[0]+"="+kv[1], func(t *testing.T) {
			t.Setenv("GIT_DIR", ".")
			t.Setenv(kv[0], kv[1])
			if d, ok := explicitDir(); ok {
				if _, ok := fromEnv(d, Config{}); ok {
					t.Error("worked out without git")
				}
			}
		})
	}
}

// sealed returns gittest's sealed environment and puts its configuration
// variables into this process's, for the git that the code under test runs.
func sealed(t *testing.T) []string {
	env := gittest.Env(t)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if k == "HOME" || k == "GIT_CONFIG_NOSYSTEM" || k == "XDG_CONFIG_HOME" {
			t.Setenv(k, v)
		}
	}
	return env
}

// TestExplicitDirSHA256BehindOddConfig is a SHA-256 repository whose
// config file git reads past a byte order mark and a continued line: the
// plain reading must decline, and Discover must say what git says.
func TestExplicitDirSHA256BehindOddConfig(t *testing.T) {
	env := sealed(t)
	dir := gittest.Init(t, env, true, "sha256")
	odd := "\xef\xbb\xbf[extensions]\n\tobjectformat = sha256\n[core]\n\tbare = true\n\tnote = x\\\n[x]\n" +
		"\trepositoryformatversion = 1\n[core \"y\"]\n\trepositoryformatversion = 0\n"
	if err := os.WriteFile(filepath.Join(dir, "config"), []byte(odd), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("GIT_DIR", ".")
	want, err := find(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, err := Discover(context.Background())
	if err != nil || got.Format != want.Format || want.Format.String() != "sha256" {
		t.Fatalf("Discover: %+v, %v; git rev-parse: %+v", got, err, want)
	}
}
