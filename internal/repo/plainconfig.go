package repo

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// plainConfig reads, without running git, what `git config --list
// --show-scope` prints for the explicit repository dir (explicitDir): the
// system file, the global ones, the repository's own, in git's order and
// with git's canonical keys. It declines (false) wherever git's reading
// might differ, and git config then reads and says what git says:
//
//   - a scope the environment moves or adds: GIT_CONFIG_PARAMETERS and
//     GIT_CONFIG_COUNT (`git -c`), GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM, an
//     unset HOME, a GIT_CONFIG_NOSYSTEM that is no boolean;
//   - a system file whose place the running git does not make certain:
//     unless GIT_CONFIG_NOSYSTEM, only a git whose exec path (the first
//     element of the PATH git gives its helpers) is /usr/lib/git-core or
//     /usr/libexec/git-core, which reads /etc/gitconfig;
//   - a repository git might refuse or read otherwise: its config file
//     must say plainly format 0 and no extensions (formatZero), or, where
//     started says that the git that named it in GIT_DIR set it up (and
//     so took its format), format 1 with the object format and ref
//     storage extensions alone (plainFormat);
//   - include and includeIf, and every form of a file but the plainest
//     (plainFile): a value quoted, escaped, continued or with a tab in it,
//     a carriage return, a key on a header's line, the old
//     [section.subsection] form, anything git would refuse;
//   - a file that is not a regular file, cannot be read (but for one that
//     does not exist, which git skips too) or is over 1 MiB.
func plainConfig(dir string, started bool) (Config, bool) {
	for _, k := range []string{"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"} {
		if _, set := os.LookupEnv(k); set {
			return nil, false
		}
	}
	home := os.Getenv("HOME")
	if home == "" {
		return nil, false
	}
	if version, ext, ok := plainFormat(dir); !ok || !started && !zeroFormat(version, ext, ok) {
		return nil, false
	}
	var files []scopedFile
	noSystem, ok := false, true
	if v, set := os.LookupEnv("GIT_CONFIG_NOSYSTEM"); set {
		if noSystem, ok = ParseBool(v); !ok {
			return nil, false
		}
	}
	if !noSystem {
		path, ok := systemFile()
		if !ok {
			return nil, false
		}
		files = append(files, scopedFile{"system", path})
	}
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		xdg = filepath.Join(home, ".config")
	}
	files = append(files, scopedFile{"global", filepath.Join(xdg, "git", "config")},
		scopedFile{"global", filepath.Join(home, ".gitconfig")}, scopedFile{"local", filepath.Join(dir, "config")})
	var c Config
	for _, f := range files {
		if c, ok = f.read(c); !ok {
			return nil, false
		}
	}
	return c, true
}

// scopedFile is a configuration file and the scope git names it by.
type scopedFile struct{ scope, path string }

// read appends the file's entries to c; a file that does not exist adds
// none.
func (f scopedFile) read(c Config) (Config, bool) {
	fi, err := os.Stat(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, true
	}
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
		return nil, false
	}
	b, err := os.ReadFile(f.path)
	if err != nil || len(b) > 1<<20 {
		return nil, false
	}
	return plainFile(b, f.scope, c)
}

// systemFile is the system configuration file of the git that runs this
// program, where it is certain: a git installed under /usr (its exec path
// first in PATH, as git puts it there for the programs it runs) reads
// /etc/gitconfig.
func systemFile() (string, bool) {
	first, _, _ := strings.Cut(os.Getenv("PATH"), string(os.PathListSeparator))
	switch first {
	case "/usr/lib/git-core", "/usr/libexec/git-core":
		return "/etc/gitconfig", true
	}
	return "", false
}

// plainFile parses a configuration file of the plainest form, appending
// its entries to c with scope: lines that are blank, comments ('#' or
// ';'), section headers ("[section]" or `[section "subsection"]`, a
// comment after them) or "name" / "name = value" (the value up to a
// comment, the blanks around it dropped), nothing else. It declines
// include and includeIf sections, a value with a quote, a backslash or a
// tab inside it (which git versions read differently), and anywhere a
// carriage return, a NUL, a vertical tab, a form feed or a byte order
// mark.
func plainFile(b []byte, scope string, c Config) (Config, bool) {
	if strings.ContainsAny(string(b), "\r\x00\v\f") || strings.HasPrefix(string(b), "\xef\xbb\xbf") {
		return nil, false
	}
	section := ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimLeft(line, blanks)
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
			continue
		case line[0] == '[':
			s, ok := plainHeader(line[1:])
			if !ok {
				return nil, false
			}
			section = s
			continue
		}
		name, value, hasValue, ok := plainKey(line)
		if !ok || section == "" {
			return nil, false
		}
		c = append(c, Entry{Key: section + "." + name, Value: value, NoValue: !hasValue, Scope: scope})
	}
	return c, true
}

// blanks are the blanks plainFile reads as git does: around names, '='
// and values, never inside a value.
const blanks = " \t"

// plainHeader parses a section header after its '[': the section
// (lower-cased), and the subsection (as written, no quote or backslash in
// it) after a dot.
func plainHeader(h string) (string, bool) {
	i := 0
	for i < len(h) && (isAlnum(h[i]) || h[i] == '-') {
		i++
	}
	name := strings.ToLower(h[:i])
	if name == "" || name == "include" || name == "includeif" || i == len(h) {
		return "", false
	}
	if h[i] == ']' {
		return name, blankOrComment(h[i+1:])
	}
	rest := strings.TrimLeft(h[i:], blanks)
	if len(rest) == len(h[i:]) || rest == "" || rest[0] != '"' {
		return "", false
	}
	sub, after, ok := strings.Cut(rest[1:], "\"")
	if !ok || strings.ContainsRune(sub, '\\') || !strings.HasPrefix(after, "]") || !blankOrComment(after[1:]) {
		return "", false
	}
	return name + "." + sub, true
}

// plainKey parses "name" or "name = value": a letter first, then
// letters, digits and '-'; the value up to a comment, blanks around it
// dropped, declined where it holds a quote, a backslash or a tab.
func plainKey(line string) (name, value string, hasValue, ok bool) {
	i := 0
	for i < len(line) && (isAlnum(line[i]) || line[i] == '-') {
		i++
	}
	name, rest := strings.ToLower(line[:i]), strings.TrimLeft(line[i:], blanks)
	if name == "" || !isAlpha(name[0]) {
		return "", "", false, false
	}
	if rest == "" {
		return name, "", false, true
	}
	if rest[0] != '=' {
		return "", "", false, false
	}
	value = rest[1:]
	if j := strings.IndexAny(value, "#;"); j >= 0 {
		value = value[:j]
	}
	value = strings.Trim(value, blanks)
	if strings.ContainsAny(value, "\"\\\t") {
		return "", "", false, false
	}
	return name, value, true, true
}

// blankOrComment reports whether s holds blanks and perhaps a comment.
func blankOrComment(s string) bool {
	s = strings.TrimLeft(s, blanks)
	return s == "" || s[0] == '#' || s[0] == ';'
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }
