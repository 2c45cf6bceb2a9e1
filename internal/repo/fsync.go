package repo

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/git-durable/git-durable/batch"
)

// platformMethod is the core.fsyncMethod git uses on this platform when
// none is set.
func platformMethod() string {
	switch runtime.GOOS {
	case "darwin":
		return "writeout-only"
	case "windows":
		return "batch"
	}
	return "fsync"
}

// syncPlan is how the objects of an unpack are synced, resolved from
// core.fsync, core.fsyncMethod and core.fsyncObjectFiles.
type syncPlan struct {
	loose batch.Method // loose objects
	pack  batch.Method // a kept pack: its files and their names
	// unsynced says which settings leave loose objects without any sync
	// although nobody asked for that (see fsyncPlan); "" otherwise.
	unsynced string
	// fixScope and fixValue: the core.fsync value that syncs them, and the
	// scope (git config --show-scope's word) to write it in.
	fixScope, fixValue string
	// notice, with the durable reading, says how it read settings that
	// git reads otherwise, or values it ignored; "" when there are none.
	notice string
}

// fsyncPlan resolves how loose objects and kept packs are synced. With
// none of core.fsync, core.fsyncMethod and core.fsyncObjectFiles set both
// are Batch, this project's default; otherwise loose objects are synced
// as git would sync them, and a kept pack as git syncs the packs it
// writes (the pack component, on by default) or as loose objects are,
// whichever syncs more.
//
// git's reading leaves loose objects out more often than users expect:
// core.fsyncMethod (or core.fsyncObjectFiles=false) alone keeps git's
// default components, which do not include loose-object, and so does a
// core.fsync list that does not name it. unsynced then says so, and which
// setting did it; it is "" when loose objects are synced or when the user
// took them away on purpose (core.fsync=none, a -loose-object token).
//
// With durable (the helper's reading: git-remote-durable was asked for by
// name), loose objects are synced unless the settings turn them off by
// name — core.fsync=none, a "-" token that takes loose-object away,
// core.fsyncObjectFiles=false without a core.fsync that names them — with
// core.fsyncMethod where it names a method, else batch. A value git does
// not know is ignored, never read as none, and notice says so.
func (c Config) fsyncPlan(warn func(string), durable bool) (syncPlan, error) {
	fsync, hasFsync := c.Get("core.fsync")
	methodEntry, hasMethod := c.Get("core.fsyncMethod")
	_, hasObjectFiles := c.Get("core.fsyncObjectFiles")
	if !hasFsync && !hasMethod && !hasObjectFiles {
		return syncPlan{loose: batch.Batch, pack: batch.Batch}, nil
	}
	components, dropped := compDefault, false
	var ignored, known []string
	if hasFsync {
		var unknown []string
		components, dropped, unknown, known = parseComponentList(fsync.Value, warn)
		for _, u := range unknown {
			ignored = append(ignored, fmt.Sprintf("the unknown core.fsync component '%s'", u))
		}
	}
	method, methodSet := fsyncMethod(methodEntry, hasMethod, warn)
	if hasMethod && !methodSet {
		ignored = append(ignored, fmt.Sprintf("the unknown core.fsyncMethod value '%s'", methodEntry.Value))
	}
	objectFiles := false
	if hasObjectFiles {
		warn("core.fsyncObjectFiles is deprecated; use core.fsync instead")
		var err error
		if objectFiles, err = c.Bool("core.fsyncObjectFiles", false); err != nil {
			return syncPlan{}, err
		}
	}
	if durable {
		return durablePlan(components, dropped, objectFiles, hasObjectFiles, method, methodSet, ignored), nil
	}
	p := gitPlan(components, objectFiles, method)
	if p.loose == batch.None && !dropped {
		p.explainUnsynced(c, known)
	}
	return p, nil
}

// gitPlan is git's own reading of the parsed settings.
func gitPlan(components int, objectFiles bool, method string) syncPlan {
	// close_loose_object: the batch path needs the component and the
	// method; otherwise fsyncObjectFiles or the component sync each object
	// with the method, where batch means a full flush.
	var p syncPlan
	switch {
	case components&compLooseObject != 0 && method == "batch":
		p.loose = batch.Batch
	case objectFiles || components&compLooseObject != 0:
		p.loose = batch.Fsync
		if method == "writeout-only" {
			p.loose = batch.WriteoutOnly
		}
	}
	// git syncs a pack it writes (fsync_component(FSYNC_COMPONENT_PACK))
	// with the method, where batch is this project's scheme for the files
	// of one pack.
	p.pack = p.loose
	if p.pack == batch.None && components&compPack != 0 {
		p.pack, _ = batch.ParseMethod(method)
	}
	return p
}

// explainUnsynced says which setting left loose objects unsynced although
// nobody took them away, and the fix: known are the core.fsync components
// git knew, so that the hint never repeats a typo of the user's.
func (p *syncPlan) explainUnsynced(c Config, known []string) {
	p.fixValue = "loose-object"
	if fsync, ok := c.Get("core.fsync"); ok {
		p.unsynced = fmt.Sprintf("core.fsync=%s does not name loose-object", fsync.Value)
		p.fixScope = fsync.Scope
		if len(known) > 0 {
			p.fixValue = strings.Join(known, ",") + ",loose-object"
		}
		return
	}
	var set []string
	for _, name := range []string{"core.fsyncMethod", "core.fsyncObjectFiles"} {
		if e, ok := c.Get(name); ok {
			set = append(set, name+"="+e.Value)
			if p.fixScope == "" {
				p.fixScope = e.Scope
			}
		}
	}
	p.unsynced = fmt.Sprintf("%s %s set but core.fsync is not, and git's default core.fsync leaves out loose-object",
		strings.Join(set, " and "), map[bool]string{true: "are", false: "is"}[len(set) > 1])
}

// fsyncMethod is core.fsyncMethod (e, when has) where it names a method,
// and whether it does; else the platform's default, with git's warning.
func fsyncMethod(e Entry, has bool, warn func(string)) (string, bool) {
	if !has {
		return platformMethod(), false
	}
	switch e.Value {
	case "fsync", "writeout-only", "batch":
		return e.Value, true
	}
	warn(fmt.Sprintf("ignoring unknown core.fsyncMethod value '%s'", e.Value))
	return platformMethod(), false
}

// durablePlan is fsyncPlan's durable reading of the parsed settings.
func durablePlan(components int, dropped, objectFiles, hasObjectFiles bool, method string, methodSet bool, ignored []string) syncPlan {
	off := dropped || hasObjectFiles && !objectFiles && components&compLooseObject == 0
	var p syncPlan
	if off {
		// Turned off by name: kept packs as git syncs them.
		if components&compPack != 0 {
			p.pack, _ = batch.ParseMethod(method)
		}
		return p
	}
	if !methodSet {
		method = "batch"
	}
	p.loose, _ = batch.ParseMethod(method)
	p.pack = p.loose
	var why []string
	if components&compLooseObject == 0 && !objectFiles {
		why = append(why, "git's own reading of these settings leaves loose objects unsynced")
	}
	if !methodSet {
		why = append(why, "core.fsyncMethod names no method")
	}
	for _, i := range ignored {
		why = append(why, "ignored "+i)
	}
	if len(ignored) > 0 || components&compLooseObject == 0 && !objectFiles {
		p.notice = fmt.Sprintf("objects are synced with %s (%s)", method, strings.Join(why, "; "))
	}
	return p
}
