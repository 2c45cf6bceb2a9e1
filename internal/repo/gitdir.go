package repo

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-durable/git-durable/object"
)

// explicitDir returns $GIT_DIR when it names a repository's own directory
// in the plainest way: set, a directory (not a gitfile), not a linked
// worktree (no commondir, no GIT_COMMON_DIR), no work tree named
// (GIT_WORK_TREE), no ".." to resolve. That is how git starts the commands
// it runs — it exports GIT_DIR to every child, receive-pack's
// unpack-objects and fetch's remote helper among them — and where
// rev-parse's answer can be worked out without running it (fromEnv).
func explicitDir() (string, bool) {
	dir, ok := os.LookupEnv("GIT_DIR")
	if !ok || dir == "" || hasDotDot(dir) {
		return "", false
	}
	// GIT_CONFIG makes git config read another file than the repository's.
	for _, k := range []string{"GIT_COMMON_DIR", "GIT_WORK_TREE", "GIT_CONFIG"} {
		if _, set := os.LookupEnv(k); set {
			return "", false
		}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", false
	}
	if _, err := os.Lstat(filepath.Join(dir, "commondir")); err == nil {
		return "", false
	}
	return dir, true
}

// hasDotDot reports whether path has a ".." element, which git resolves
// after the symlinks before it and filepath.Clean before them.
func hasDotDot(path string) bool {
	for _, el := range strings.Split(filepath.ToSlash(path), "/") {
		if el == ".." {
			return true
		}
	}
	return false
}

// fromEnv is what `git rev-parse --absolute-git-dir --git-path objects
// --show-object-format` prints for the explicit directory dir whose
// configuration is cfg. It declines (false) wherever git might answer
// otherwise or refuse — a repository whose own config file does not say
// plainly "format 0, no extensions", or "format 1" with the object format
// and ref storage extensions alone (plainFormat), which git's own reading
// of the configuration (cfg) must confirm, a core.worktree, a
// relative or empty GIT_OBJECT_DIRECTORY, a directory that does not look
// like a repository the way git checks it (isRepo) — and git rev-parse
// then runs and says what git says.
func fromEnv(dir string, cfg Config) (*Repo, bool) {
	version, ext, plain := plainFormat(dir)
	if _, ok := cfg.Get("core.worktree"); ok || !plain {
		return nil, false
	}
	// What git config read says the same, where it read the file at all:
	// git leaves the file out where it refuses the format (an extension
	// it does not know, reftable before 2.45), so every extension must be
	// there as the file says it.
	seen := 0
	for _, e := range cfg {
		if name, ok := strings.CutPrefix(e.Key, "extensions."); ok {
			if v, known := ext[name]; !known || !strings.EqualFold(v, e.Value) {
				return nil, false
			}
			seen++
		}
	}
	if seen < len(ext) {
		return nil, false
	}
	if v, ok := cfg.Get("core.repositoryformatversion"); ok && v.Value != version {
		return nil, false
	}
	format := object.SHA1
	if ext["objectformat"] == "sha256" {
		format = object.SHA256
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, false
	}
	gitDir, err := filepath.EvalSymlinks(abs) // --absolute-git-dir is canonical
	if err != nil {
		return nil, false
	}
	objects := filepath.Join(abs, "objects")
	if env, set := os.LookupEnv("GIT_OBJECT_DIRECTORY"); set {
		if !filepath.IsAbs(env) || hasDotDot(env) {
			return nil, false
		}
		objects = filepath.Clean(env)
	}
	if !isRepo(dir, objects) {
		return nil, false
	}
	return &Repo{GitDir: gitDir, CommonDir: gitDir, ObjectDir: objects, Format: format}, true
}

// formatZero reads dir/config the way git reads a repository's format —
// that file alone, no includes — and reports whether it plainly says
// core.repositoryformatversion = 0 and has no extensions section. git
// leaves a repository's own configuration out of `git config --list` when
// it refuses its format, so the configuration already read cannot say so.
// It reads only the plainest form and declines everything else: a byte
// order mark, a continued line, a quote outside a section header, a key on
// a header's line, a [core] that is not exactly that.
func formatZero(dir string) bool { return zeroFormat(plainFormat(dir)) }

// zeroFormat reports whether what plainFormat read is format 0 with no
// extensions section.
func zeroFormat(version string, ext map[string]string, ok bool) bool {
	return ok && version == "0" && ext == nil
}

// plainFormat reads dir/config as formatZero does, and also takes format
// version 1 with the extensions objectformat (sha1, sha256) and
// refstorage (files, reftable), each said once, plainly: it returns the
// version and the extensions (names and values in lower case; nil where
// the file has no extensions section). ok is false wherever it declines:
// version 0 with an extensions section, another extension, a value that
// is not a plain word.
func plainFormat(dir string) (version string, ext map[string]string, ok bool) {
	b, err := os.ReadFile(filepath.Join(dir, "config"))
	if err != nil || len(b) > 1<<20 || bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) {
		return "", nil, false
	}
	known := map[string][]string{"objectformat": {"sha1", "sha256"}, "refstorage": {"files", "reftable"}}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			return "", nil, false // a value continued on the next line
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 || strings.TrimSpace(line[end+1:]) != "" {
				return "", nil, false // a key (or anything) on the header's line
			}
			section = strings.ToLower(strings.TrimSpace(line[1:end]))
			if strings.HasPrefix(section, "extensions") {
				if section != "extensions" {
					return "", nil, false // a subsection, or an odd header
				}
				if ext == nil {
					ext = map[string]string{}
				}
			}
			continue
		}
		if strings.ContainsRune(line, '"') {
			return "", nil, false
		}
		key, value, _ := strings.Cut(line, "=")
		key, value = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(value)
		switch section {
		case "core":
			if key == "repositoryformatversion" {
				if value != "0" && value != "1" || version != "" && version != value {
					return "", nil, false
				}
				version = value
			}
		case "extensions":
			value = strings.ToLower(value)
			if _, dup := ext[key]; dup || !slices.Contains(known[key], value) {
				return "", nil, false
			}
			ext[key] = value
		}
	}
	if sc.Err() != nil || version == "" || version == "0" && ext != nil {
		return "", nil, false
	}
	return version, ext, true
}

// isRepo is git's is_git_directory, strict: an objects directory and a
// refs directory it can enter, and a HEAD file holding a symbolic ref under
// refs/ or an object id. (A symlinked HEAD, which git also accepts, is left
// to git.)
func isRepo(dir, objects string) bool {
	for _, d := range []string{objects, filepath.Join(dir, "refs")} {
		// Resolving "d/." needs search permission on d: git's access(X_OK).
		if fi, err := os.Stat(d + string(filepath.Separator) + "."); err != nil || !fi.IsDir() {
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

// WorkTop is the directory git reads a repository's relative paths from,
// and is run in, for the git directory dir: the work tree of a .git, else
// dir itself (a bare repository).
func WorkTop(dir string) string {
	if filepath.Base(dir) == ".git" {
		return filepath.Dir(dir)
	}
	return dir
}
