package repo

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/git-durable/git-durable/object"
)

// explicitDir returns $GIT_DIR when it names a repository's own directory:
// set, a directory (not a gitfile), not a linked worktree (no commondir,
// no GIT_COMMON_DIR). That is how git starts the commands it runs — it
// exports GIT_DIR to every child, receive-pack's unpack-objects and fetch's
// remote helper among them — and where rev-parse's answer can be worked out
// without running it (fromEnv).
func explicitDir() (string, bool) {
	dir := os.Getenv("GIT_DIR")
	if dir == "" || os.Getenv("GIT_COMMON_DIR") != "" {
		return "", false
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", false
	}
	if _, err := os.Lstat(filepath.Join(dir, "commondir")); err == nil {
		return "", false
	}
	return dir, true
}

// fromEnv is what `git rev-parse --absolute-git-dir --git-path objects
// --show-object-format` prints for the explicit directory dir whose
// configuration is cfg. It declines (false) wherever git might answer
// otherwise or refuse: a repository format other than 0 or any extension
// (an object format among them), and a directory that does not look like a
// repository the way git checks it (isRepo) — git rev-parse then runs and
// says what git says.
func fromEnv(dir string, cfg Config) (*Repo, bool) {
	for _, e := range cfg {
		if strings.HasPrefix(e.Key, "extensions.") {
			return nil, false
		}
	}
	if v, ok := cfg.Get("core.repositoryformatversion"); ok && strings.TrimSpace(v.Value) != "0" {
		return nil, false
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, false
	}
	real, err := filepath.EvalSymlinks(abs) // --absolute-git-dir is canonical
	if err != nil {
		return nil, false
	}
	objects := filepath.Join(dir, "objects")
	if env := os.Getenv("GIT_OBJECT_DIRECTORY"); env != "" {
		objects = env
	}
	if objects, err = filepath.Abs(objects); err != nil || !isRepo(dir, objects) {
		return nil, false
	}
	return &Repo{GitDir: real, ObjectDir: objects, Format: object.SHA1}, true
}

// isRepo is git's is_git_directory, strict: an objects directory, a refs
// directory and a HEAD file holding a symbolic ref under refs/ or an
// object id. (A symlinked HEAD, which git also accepts, is left to git.)
func isRepo(dir, objects string) bool {
	for _, d := range []string{objects, filepath.Join(dir, "refs")} {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return false
		}
	}
	fi, err := os.Lstat(filepath.Join(dir, "HEAD"))
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return false
	}
	b, err := os.ReadFile(filepath.Join(dir, "HEAD"))
	if err != nil {
		return false
	}
	head := strings.TrimRight(string(b), "\n")
	if strings.HasPrefix(head, "ref: refs/") && !strings.ContainsAny(head, "\n\x00") {
		return true
	}
	return len(head) == 40 && strings.Trim(head, "0123456789abcdef") == ""
}
