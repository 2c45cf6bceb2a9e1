// Package objstore is where an unpack writes: a repository's loose object
// store opened with the settings it asks for, and its runs — each write
// into it with the durability policies of those settings, the unpacker's
// options that follow from them, progress in git's words, and what the run
// did (Stats). git-unpack-durable opens a Session for its one pack; the
// remote helper one for its session with git, of many runs.
package objstore

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/quarantine"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/loose"
)

// Session is one repository's object store, opened with its settings for
// the runs that write into it (Begin).
type Session struct {
	Repo     *repo.Repo
	Settings repo.Settings
	Store    *loose.Store

	claimed atomic.Int64 // the store's repairs that runs ended took (Run.End)
}

// Open resolves the settings of r and opens its store, with the
// alternates of GIT_ALTERNATE_OBJECT_DIRECTORIES. git's
// warnings about the settings go to warn, after "warning: ", and so does
// the news that they leave loose objects without any sync (Unsynced),
// with the command that syncs them. With durable, the settings are read
// as the remote helper reads them (repo.Config.DurableSettings), and
// nothing is printed: the helper says how once a session. Close it when
// done.
func Open(r *repo.Repo, getenv func(string) string, warn io.Writer, durable bool) (*Session, error) {
	read := r.Config.Settings
	if durable {
		read, warn = r.Config.DurableSettings, io.Discard
	}
	set, err := read(getenv)
	if err != nil {
		return nil, err
	}
	for _, w := range set.Warnings {
		fmt.Fprintf(warn, "warning: %s\n", w)
	}
	if set.Unsynced != "" {
		fmt.Fprintf(warn, "warning: loose objects are written without any sync: %s\n", set.Unsynced)
		fmt.Fprintf(warn, "hint: to sync them: %s\n", fixCommand(r, set))
	}
	store := loose.Open(batch.OS, r.ObjectDir, loose.Options{
		Format: r.Format, Compression: &set.Compression, Shared: set.Shared,
		Alternates: loose.SplitAlternates(getenv("GIT_ALTERNATE_OBJECT_DIRECTORIES")),
		Quarantine: quarantineOf(r),
	})
	return &Session{Repo: r, Settings: set, Store: store}, nil
}

// quarantineOf is the quarantine of the repository r, where what a write
// replaces is kept (a broken loose object, a damaged pack's file): a run
// of the process's own in its common git directory, where the objects
// directory lies inside it; nil elsewhere (a store no quarantine of the
// repository can reach by a rename).
func quarantineOf(r *repo.Repo) *quarantine.Dir {
	dir := r.CommonDir
	if dir == "" {
		dir = r.GitDir
	}
	rel, err := filepath.Rel(dir, r.ObjectDir)
	if dir == "" || err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	return quarantine.For(dir)
}

// fixCommand is the git command that writes core.fsync=set.FixValue where
// it wins over the value in force: the scope it came from.
func fixCommand(r *repo.Repo, set repo.Settings) string {
	v := shellQuote(set.FixValue)
	switch set.FixScope {
	case "command":
		return "run git with -c core.fsync=" + v
	case "system":
		return "git config --system core.fsync " + v
	case "local":
		return "git --git-dir=" + shellQuote(r.GitDir) + " config core.fsync " + v
	case "worktree":
		return "git --git-dir=" + shellQuote(r.GitDir) + " config --worktree core.fsync " + v
	}
	return "git config --global core.fsync " + v
}

// shellQuote quotes s for a POSIX shell where it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789,._-/+=:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Close closes the store.
func (t *Session) Close() { t.Store.Close() }
