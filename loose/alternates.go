package loose

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-durable/git-durable/batch"
)

// maxAlternateDepth is git's limit on alternates of alternates.
const maxAlternateDepth = 5

// alternateDirs returns the alternate object directories of dir: those in
// objects/info/alternates, recursively, then extra (from
// GIT_ALTERNATE_OBJECT_DIRECTORIES), each once and never dir itself.
func alternateDirs(fsys batch.FS, dir string, extra []string) ([]string, error) {
	seen := map[string]bool{filepath.Clean(dir): true}
	var out []string
	var walk func(d string, depth int) error
	add := func(p string, depth int) error {
		p = filepath.Clean(p)
		if seen[p] {
			return nil
		}
		seen[p] = true
		if _, err := fsys.Stat(p); err != nil {
			return nil // git warns and ignores a missing alternate
		}
		out = append(out, p)
		return walk(p, depth+1)
	}
	walk = func(d string, depth int) error {
		if depth > maxAlternateDepth {
			return nil
		}
		data, err := fsys.ReadFile(filepath.Join(d, "info", "alternates"))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimRight(line, "\r")
			if line == "" || line[0] == '#' {
				continue
			}
			p := unquote(line)
			if !filepath.IsAbs(p) {
				p = filepath.Join(d, p)
			}
			if err := add(p, depth); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(dir, 0); err != nil {
		return nil, err
	}
	for _, p := range extra {
		if err := add(p, 0); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SplitAlternates splits a GIT_ALTERNATE_OBJECT_DIRECTORIES value: entries
// separated by the path list separator, each possibly C-quoted.
func SplitAlternates(v string) []string {
	var out []string
	for v != "" {
		var entry string
		if v[0] == '"' {
			if q, err := strconv.QuotedPrefix(v); err == nil {
				entry, v = unquote(q), v[len(q):]
				v = strings.TrimPrefix(v, string(os.PathListSeparator))
				out = append(out, entry)
				continue
			}
		}
		entry, v, _ = strings.Cut(v, string(os.PathListSeparator))
		if entry != "" {
			out = append(out, entry)
		}
	}
	return out
}

// unquote undoes git's C-style quoting of a path when it is quoted.
func unquote(s string) string {
	if len(s) < 2 || s[0] != '"' {
		return s
	}
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}
