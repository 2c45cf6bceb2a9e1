// Package objstore is where an unpack writes: a repository's loose object
// store opened with the durability policy its settings ask for, the
// unpacker's options that follow from those settings, and progress in git's
// words. git-unpack-durable and the remote helper each open a Session per
// pack; what a run did goes into its Stats.
package objstore

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/progress"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/unpack"
	"github.com/git-durable/git-durable/loose"
)

// Session is one repository's object store opened for one unpack.
type Session struct {
	Repo     *repo.Repo
	Settings repo.Settings
	Store    *loose.Store
	Policy   *batch.Policy // loose objects
	// PackPolicy publishes a kept pack: Policy itself where the settings
	// sync both alike.
	PackPolicy *batch.Policy

	start time.Time
	meter *progress.Meter
}

// Open resolves the settings of r and opens its store, with the
// alternates of GIT_ALTERNATE_OBJECT_DIRECTORIES, and its policies. git's
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
	})
	t := &Session{Repo: r, Settings: set, Store: store, Policy: set.Policy(batch.OS, r.ObjectDir), start: time.Now()}
	t.PackPolicy = t.Policy
	if set.PackMethod != set.Method {
		t.PackPolicy = set.PackPolicy(batch.OS, r.ObjectDir)
	}
	return t, nil
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

// Options are the unpacker's options that follow from the settings:
// messages (git's error and warning lines) go to msgs; a kept pack, when
// keep is set, gets the settings' pack compression; the memory the run
// holds per object raises the process's soft memory limit, and so, as far
// as a ceiling, does the room a kept pack asks for.
func (t *Session) Options(msgs io.Writer, keep *unpack.Keep) unpack.Options {
	if keep != nil {
		keep.Compression = t.Settings.PackCompression
	}
	return unpack.Options{BigFileThreshold: t.Settings.BigFileThreshold, Messages: msgs, Keep: keep, PackPolicy: t.PackPolicy,
		Reserve: cli.ReserveMemory, ReserveRoom: cli.ReserveRoom}
}

// Progress returns the unpacker's progress callback: git's "Unpacking
// objects" line on w, drawn from the first call on.
func (t *Session) Progress(w io.Writer) func(done, total int, n int64) {
	return func(done, total int, n int64) {
		if t.meter == nil {
			t.meter = progress.New(w, "Unpacking objects", total, true)
		}
		t.meter.Update(done, n)
	}
}

// Done ends the progress line with git's ", done.", if one was drawn.
func (t *Session) Done() {
	if t.meter != nil {
		t.meter.Done()
	}
}

// Close closes the store.
func (t *Session) Close() { t.Store.Close() }
