package fsck

import (
	"bytes"

	"github.com/git-durable/git-durable/object"
)

// File modes as git stores them in trees (the S_IF* bits of a 16-bit mode).
const (
	modeTypeMask = 0o170000
	modeDir      = 0o040000
	modeReg      = 0o100000
	modeSymlink  = 0o120000
	modeGitlink  = 0o160000
)

// treeEntry is one decoded tree entry.
type treeEntry struct {
	mode    uint32 // the octal mode as parsed, wrapping like C's unsigned int
	name    []byte
	oid     []byte
	size    int  // bytes the entry takes in the tree
	zeroPad bool // the mode was written with a leading '0'
}

// mode16 is the mode as fsck_tree sees it, through an unsigned short.
func (e *treeEntry) mode16() uint16 { return uint16(e.mode) }

// decodeEntry decodes the entry at the start of buf (the rest of a tree),
// as git's decode_tree_entry does. On failure it returns git's reason.
func decodeEntry(buf []byte, hashsz int) (e treeEntry, reason string) {
	size := len(buf)
	if size < hashsz+3 || buf[size-(hashsz+1)] != 0 {
		return e, "too-short tree object"
	}
	if buf[0] == ' ' {
		return e, "malformed mode in tree entry"
	}
	i := 0
	for ; buf[i] != ' '; i++ {
		c := buf[i]
		if c < '0' || c > '7' {
			return e, "malformed mode in tree entry"
		}
		e.mode = e.mode<<3 + uint32(c-'0')
	}
	i++
	if buf[i] == 0 {
		return e, "empty filename in tree entry"
	}
	nul := i + bytes.IndexByte(buf[i:], 0)
	e.name = buf[i:nul]
	e.oid = buf[nul+1 : nul+1+hashsz]
	e.size = nul + 1 + hashsz
	e.zeroPad = buf[0] == '0'
	return e, ""
}

// treeFlags are what fsck_tree finds over all the entries of a tree and
// reports once.
type treeFlags struct {
	hasNull, hasFullPath, hasEmpty, hasDot, hasDotdot, hasDotgit bool
	hasZeroPad, hasBadMode, hasDup, unsorted                     bool
}

// checkTree checks a tree as git 2.39's fsck_tree does, and records the
// blobs named .gitmodules and .gitattributes for Finish.
func (o *Options) checkTree(r *reporter, data []byte, hashsz int) {
	const badTree = "cannot be parsed as a tree"
	var f treeFlags
	var cur treeEntry
	if len(data) > 0 {
		var why string
		if cur, why = decodeEntry(data, hashsz); why != "" {
			r.reportFor(r.id, r.t, msgBadTree, badTree, why)
			return
		}
	}
	var prev *treeEntry
	var candidates [][]byte
	for pos := 0; pos < len(data); {
		e := cur
		name, mode := e.name, e.mode16()
		f.name(e)
		o.specialNames(r, e, &f)

		pos += e.size
		if pos < len(data) {
			var why string
			if cur, why = decodeEntry(data[pos:], hashsz); why != "" {
				r.reportFor(r.id, r.t, msgBadTree, badTree, why)
				break
			}
		}

		switch mode {
		case modeReg | 0o755, modeReg | 0o644, modeSymlink, modeDir, modeGitlink:
		default: // including 100664, which only non-strict fsck allows
			f.hasBadMode = true
		}
		if prev != nil {
			switch verifyOrdered(prev.mode16(), prev.name, mode, name, &candidates) {
			case treeUnordered:
				f.unsorted = true
			case treeHasDups:
				f.hasDup = true
			}
		}
		prev = &e
	}
	f.report(r)
}

// name notes what is wrong with an entry's name and object id.
func (f *treeFlags) name(e treeEntry) {
	name := e.name
	f.hasNull = f.hasNull || isNullOID(e.oid)
	f.hasFullPath = f.hasFullPath || bytes.IndexByte(name, '/') >= 0
	f.hasEmpty = f.hasEmpty || len(name) == 0
	f.hasDot = f.hasDot || string(name) == "."
	f.hasDotdot = f.hasDotdot || string(name) == ".."
	f.hasDotgit = f.hasDotgit || isDotGit(name)
	f.hasZeroPad = f.hasZeroPad || e.zeroPad
}

// specialNames records .gitmodules and .gitattributes blobs and reports
// those files, .gitignore and .mailmap as symlinks, under every spelling
// git knows of (NTFS's included).
func (o *Options) specialNames(r *reporter, e treeEntry, f *treeFlags) {
	name := e.name
	isLink := e.mode16()&modeTypeMask == modeSymlink
	if isDotGitmodules(name) {
		o.foundModules(r, e, isLink)
	}
	if isDotGitattributes(name) {
		if !isLink {
			o.attrsFound = addID(o.attrsFound, e.oid)
		} else {
			r.report(msgGitattributesSymlink, ".gitattributes is a symlink")
		}
	}
	if isLink {
		if isDotGitignore(name) {
			r.report(msgGitignoreSymlink, ".gitignore is a symlink")
		}
		if isDotMailmap(name) {
			r.report(msgMailmapSymlink, ".mailmap is a symlink")
		}
	}
	// Windows takes '\' as a directory separator.
	for rest := name; ; {
		bs := bytes.IndexByte(rest, '\\')
		if bs < 0 {
			break
		}
		rest = rest[bs+1:]
		f.hasDotgit = f.hasDotgit || isNTFSDotGit(rest)
		if isNTFSDot(rest, "gitmodules", "gi7eba") {
			o.foundModules(r, e, isLink)
		}
	}
}

// report reports each flag set, in fsck_tree's order.
func (f *treeFlags) report(r *reporter) {
	flags := []struct {
		set  bool
		msg  msgID
		text string
	}{
		{f.hasNull, msgNullSha1, "contains entries pointing to null sha1"},
		{f.hasFullPath, msgFullPathname, "contains full pathnames"},
		{f.hasEmpty, msgEmptyName, "contains empty pathname"},
		{f.hasDot, msgHasDot, "contains '.'"},
		{f.hasDotdot, msgHasDotdot, "contains '..'"},
		{f.hasDotgit, msgHasDotgit, "contains '.git'"},
		{f.hasZeroPad, msgZeroPaddedFilemode, "contains zero-padded file modes"},
		{f.hasBadMode, msgBadFilemode, "contains bad file modes"},
		{f.hasDup, msgDuplicateEntries, "contains duplicate file entries"},
		{f.unsorted, msgTreeNotSorted, "not properly sorted"},
	}
	for _, fl := range flags {
		if fl.set {
			r.report(fl.msg, fl.text)
		}
	}
}

// foundModules records a .gitmodules blob, or reports it being a symlink.
func (o *Options) foundModules(r *reporter, e treeEntry, isLink bool) {
	if isLink {
		r.report(msgGitmodulesSymlink, ".gitmodules is a symbolic link")
		return
	}
	o.modulesFound = addID(o.modulesFound, e.oid)
}

func isNullOID(oid []byte) bool {
	for _, c := range oid {
		if c != 0 {
			return false
		}
	}
	return true
}

// addID adds the object named by raw to set, making the set if need be.
func addID(set map[object.ID]struct{}, raw []byte) map[object.ID]struct{} {
	id, err := object.IDFromBytes(raw)
	if err != nil {
		return set
	}
	if set == nil {
		set = make(map[object.ID]struct{})
	}
	set[id] = struct{}{}
	return set
}
