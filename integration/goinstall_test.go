package integration

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// module is the project's module path, as a Go user types it.
const module = "github.com/git-durable/git-durable"

// TestGoInstall installs the commands as a Go user does — go install
// ./cmd/... in a checkout, and go install <module>/cmd/...@latest from a
// module proxy (a file proxy holding this tree as v0.0.1, beside the
// module cache for the dependencies) — each into an empty GOBIN: it must
// hold git-unpack-durable and git-remote-durable and nothing else, and
// with it on PATH "git unpack-durable" and a durable:: clone must work.
func TestGoInstall(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: ", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cache := goEnv(t, "GOMODCACHE")
	proxy := moduleProxy(t, root, "v0.0.1")
	for _, tc := range []struct {
		name string
		dir  string
		env  []string
		args []string
	}{
		{"checkout", root, nil, []string{"./cmd/..."}},
		{"proxy", t.TempDir(), []string{
			"GOPROXY=file://" + proxy + ",file://" + filepath.Join(cache, "cache", "download"),
			"GOSUMDB=off", "GOFLAGS=-modcacherw", "GOMODCACHE=" + t.TempDir(), "GOTOOLCHAIN=local", "GO111MODULE=on",
		}, []string{module + "/cmd/...@latest"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := t.TempDir()
			cmd := exec.Command("go", append([]string{"install"}, tc.args...)...)
			cmd.Dir, cmd.Env = tc.dir, append(append(os.Environ(), "GOBIN="+bin), tc.env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("go install %v: %v\n%s", tc.args, err, out)
			}
			entries, err := os.ReadDir(bin)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if strings.Join(names, " ") != "git-remote-durable git-unpack-durable" {
				t.Fatalf("go install %v made %v, want git-remote-durable and git-unpack-durable", tc.args, names)
			}

			env := gittest.Env(t, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "GIT_DURABLE_FORCE_BATCH=1")
			src := gittest.Init(t, env, false, "")
			gittest.History(t, env, src, 5, 4)
			pack := packOf(t, env, src, "main\n", "--revs")
			git, ours := both(t, env, "", pack, nil)
			if ours.Code != 0 {
				t.Fatalf("git unpack-durable: exit %d\n%s", ours.Code, ours.Stderr)
			}
			sameObjects(t, env, git, ours)
			clone := filepath.Join(t.TempDir(), "clone")
			c := gittest.Exec(t, env, src, nil, "git", "clone", "-q", "durable::"+src, clone)
			mustRun(t, c, "clone through the installed helper")
			gittest.Fsck(t, env, clone)
		})
	}
}

// moduleProxy writes a file module proxy (GOPROXY=file://…) that serves
// the files git knows of in root (committed or not, ignored ones left
// out) as version v of the module, and returns its directory.
func moduleProxy(t *testing.T, root, v string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if fi, err := os.Lstat(filepath.Join(root, f)); f != "" && err == nil && fi.Mode().IsRegular() {
			files = append(files, f)
		}
	}
	sort.Strings(files)
	proxy := t.TempDir()
	dir := filepath.Join(proxy, module, "@v")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	z, err := os.Create(filepath.Join(dir, v+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(z)
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(module + "@" + v + "/" + f)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	z.Close()
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"list":      v + "\n",
		v + ".mod":  string(mod),
		v + ".info": `{"Version":"` + v + `","Time":"2026-01-01T00:00:00Z"}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return proxy
}
