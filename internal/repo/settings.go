package repo

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/git-durable/git-durable/batch"
)

// Settings are the configuration values the object writers honour, resolved
// with git's semantics.
type Settings struct {
	Method     batch.Method // loose objects
	PackMethod batch.Method // a kept pack
	// Unsynced says which settings leave loose objects without any sync
	// although nobody asked for that by name ("core.fsyncMethod=batch is
	// set but core.fsync is not, …"); "" when they are synced, or were
	// turned off with core.fsync=none or -loose-object.
	Unsynced string
	// FixValue is the core.fsync value that syncs them, to be written in
	// the scope FixScope (git config --show-scope's word, "" if unknown).
	FixValue, FixScope string
	// Notice, with DurableSettings, says how settings that git reads
	// otherwise were read, and which values were ignored ("objects are
	// synced with batch (ignored the unknown core.fsyncMethod value
	// 'bathc')"); "" when there is nothing to say.
	Notice           string
	NoFlush          bool // GIT_TEST_FSYNC is false: skip full flushes
	ForceBatch       bool // GIT_DURABLE_FORCE_BATCH: batch on any filesystem (tests)
	Compression      int  // core.looseCompression, else core.compression, else 1
	PackCompression  int  // pack.compression, else core.compression, else -1
	BigFileThreshold int64
	Shared           int // core.sharedRepository in git's encoding
	// Warnings are lines git would print after "warning: ".
	Warnings []string
}

// Settings resolves the writer settings with git's reading; getenv reads
// the environment.
func (c Config) Settings(getenv func(string) string) (Settings, error) {
	return c.settings(getenv, false)
}

// DurableSettings resolves them with the remote helper's reading, where
// durability was asked for by name (durable::): loose objects are synced
// unless the settings turn them off by name, and a value git does not
// know never means none (see fsyncPlan); Notice says how it read them.
func (c Config) DurableSettings(getenv func(string) string) (Settings, error) {
	return c.settings(getenv, true)
}

func (c Config) settings(getenv func(string) string, durable bool) (Settings, error) {
	var s Settings
	warn := func(w string) { s.Warnings = append(s.Warnings, w) }
	plan, err := c.fsyncPlan(warn, durable)
	if err != nil {
		return s, err
	}
	s.Method, s.PackMethod = plan.loose, plan.pack
	s.Unsynced, s.FixValue, s.FixScope = plan.unsynced, plan.fixValue, plan.fixScope
	s.Notice = plan.notice
	if v := getenv("GIT_TEST_FSYNC"); v != "" {
		on, ok := ParseBool(v)
		if !ok {
			return s, fmt.Errorf("bad boolean environment value '%s' for 'GIT_TEST_FSYNC'", v)
		}
		s.NoFlush = !on
	}
	if v := getenv("GIT_DURABLE_FORCE_BATCH"); v != "" {
		s.ForceBatch, _ = ParseBool(v)
	}
	s.Compression = 1
	for _, key := range []string{"core.compression", "core.looseCompression"} {
		if c.Has(key) {
			v, err := c.Int(key, 1)
			if err != nil {
				return s, err
			}
			if v < -1 || v > 9 {
				return s, fmt.Errorf("bad zlib compression level %d", v)
			}
			s.Compression = int(v)
		}
	}
	s.PackCompression = -1
	for _, key := range []string{"core.compression", "pack.compression"} {
		if c.Has(key) {
			v, err := c.Int(key, -1)
			if err != nil {
				return s, err
			}
			if v < -1 || v > 9 {
				return s, fmt.Errorf("bad pack compression level %d", v)
			}
			s.PackCompression = int(v)
		}
	}
	if s.BigFileThreshold, err = c.Int("core.bigFileThreshold", 512<<20); err != nil {
		return s, err
	}
	if e, ok := c.Get("core.sharedRepository"); ok {
		if s.Shared, err = parseShared(e); err != nil {
			return s, err
		}
	}
	if e, ok := c.Get("core.createObject"); ok && e.Value != "rename" && e.Value != "link" {
		return s, fmt.Errorf("invalid mode for object creation: %s", e.Value)
	}
	return s, nil
}

// Policy returns the durability policy of these settings for the loose
// objects of the objects directory dir.
func (s Settings) Policy(fsys batch.FS, dir string) *batch.Policy {
	return batch.New(fsys, dir, batch.Options{Method: s.Method, NoFlush: s.NoFlush, Force: s.ForceBatch})
}

// PackPolicy returns the durability policy of these settings for a pack
// kept in the objects directory dir.
func (s Settings) PackPolicy(fsys batch.FS, dir string) *batch.Policy {
	return batch.New(fsys, dir, batch.Options{Method: s.PackMethod, NoFlush: s.NoFlush, Force: s.ForceBatch})
}

// Plan is how these settings sync in the objects directory dir, as the
// policies find its filesystem: loose objects, and kept packs.
func (s Settings) Plan(dir string) (loose, packs batch.Stats) {
	return s.Policy(batch.OS, dir).Stats(), s.PackPolicy(batch.OS, dir).Stats()
}

// Flushed reports whether a sync path, as a session line names it
// (batch.Path), makes what it writes durable.
func Flushed(path string) bool { return batch.Path(path).Flushed() }

// parseShared is git's git_config_perm.
func parseShared(e Entry) (int, error) {
	const group, everybody = 0o660, 0o664
	if e.NoValue {
		return group, nil
	}
	switch e.Value {
	case "umask":
		return 0, nil
	case "group":
		return group, nil
	case "all", "world", "everybody":
		return everybody, nil
	}
	i, err := strconv.ParseInt(e.Value, 8, 32)
	if err != nil || strings.HasPrefix(e.Value, "-") || strings.HasPrefix(e.Value, "+") {
		on, ok := ParseBool(e.Value)
		if !ok {
			return 0, fmt.Errorf("bad boolean config value '%s' for '%s'", e.Value, e.Key)
		}
		if on {
			return group, nil
		}
		return 0, nil
	}
	switch i {
	case 0:
		return 0, nil
	case 1:
		return group, nil
	case 2:
		return everybody, nil
	}
	if i&0o600 != 0o600 {
		return 0, fmt.Errorf("problem with core.sharedRepository filemode value (0%.3o).\nThe owner of files must always have read and write permissions.", i)
	}
	return -int(i & 0o666), nil
}

// SyncsRefs reports whether git fsyncs each ref file it writes:
// core.fsync names the reference component (reference, committed, added,
// all). On ext4 with fast commits those syncs are fast commits of regular
// files, which the kernel's recovery cannot always replay.
func (c Config) SyncsRefs() bool {
	e, ok := c.Get("core.fsync")
	if !ok {
		return platformComponents()&compReference != 0
	}
	components, _ := parseComponents(e.Value, func(string) {})
	return components&compReference != 0
}
