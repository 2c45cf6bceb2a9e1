package repo

import (
	"fmt"
	"io"
	"strings"

	"github.com/git-durable/git-durable/internal/fsck"
	"github.com/git-durable/git-durable/object"
)

// fsckSetting is one fetch.fsck.<msg-id> or fetch.fsck.skipList entry.
type fsckSetting struct {
	msgID string // "" for a skip list
	sev   fsck.Severity
	path  string // the skip list
}

// FsckOptions returns the checks a fetch runs on the objects it receives
// (nil: none), as git 2.39's fetch-pack sets them up for index-pack
// --strict: fetch.fsckObjects, else transfer.fsckObjects, else off; then,
// in the order of the configuration, each fetch.fsck.<msg-id> severity
// (error, warn or ignore) and each fetch.fsck.skipList file. As in git,
// the fetch.fsck.* entries are read whether or not the checks are on: an
// unknown message id is skipped with a warning, an unknown severity is
// fatal.
func (c Config) FsckOptions(f object.Format, getenv func(string) string, errw io.Writer) (*fsck.Options, error) {
	sets, err := fsckSettings(c, getenv, errw)
	if err != nil {
		return nil, err
	}
	on := false
	for _, key := range []string{"fetch.fsckObjects", "transfer.fsckObjects"} {
		if c.Has(key) {
			v, err := c.Bool(key, false)
			if err != nil {
				return nil, err
			}
			on = v
			break
		}
	}
	if !on {
		return nil, nil
	}
	o := fsck.Strict()
	for _, s := range sets {
		var err error
		if s.msgID == "" {
			err = o.ReadSkipList(s.path, f)
		} else {
			err = o.SetSeverity(s.msgID, s.sev)
		}
		if err != nil {
			return nil, err
		}
	}
	return o, nil
}

// fsckSettings reads the fetch.fsck.* entries in the order of the
// configuration: a severity per message id, a skip list per file.
func fsckSettings(c Config, getenv func(string) string, errw io.Writer) ([]fsckSetting, error) {
	var sets []fsckSetting
	for _, e := range c {
		name, ok := strings.CutPrefix(e.Key, "fetch.fsck.")
		if !ok {
			continue
		}
		if name == "skiplist" {
			if e.NoValue {
				fmt.Fprintf(errw, "error: missing value for '%s'\n", e.Key)
				continue
			}
			p, err := ExpandPath(e.Value, getenv)
			if err != nil {
				return nil, err
			}
			sets = append(sets, fsckSetting{path: p})
			continue
		}
		if _, ok := fsck.Strict().Severity(name); !ok {
			fmt.Fprintf(errw, "warning: Skipping unknown msg id '%s'\n", name)
			continue
		}
		s, err := fsck.ParseSeverity(e.Value)
		if err != nil {
			return nil, err
		}
		sets = append(sets, fsckSetting{msgID: name, sev: s})
	}
	return sets, nil
}
