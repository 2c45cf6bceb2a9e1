package fsck

import (
	"sort"
	"strings"

	"github.com/git-durable/git-durable/object"
)

// Limits git 2.39 puts on .gitattributes files (attr.h).
const (
	attrMaxFileSize   = 100 * 1024 * 1024
	attrMaxLineLength = 2048
)

// checkBlob runs git's fsck_blob: a blob a tree named .gitmodules must parse
// as config and name no dangerous submodule; one named .gitattributes must
// be small enough for git to read. large says the caller could not load
// the blob (git's NULL buffer).
func (o *Options) checkBlob(r *reporter, id object.ID, data []byte, large bool) {
	if o.Skipped(id) {
		return
	}
	if _, ok := o.modulesFound[id]; ok {
		o.modulesDone = addID(o.modulesDone, id.Bytes())
		if large {
			r.reportFor(id, object.Blob, msgGitmodulesLarge, ".gitmodules too large to parse", "")
			return
		}
		err := parseConfig(data, func(key string, value *string) {
			checkModulesEntry(r, id, key, value)
		})
		if err != nil {
			r.reportFor(id, object.Blob, msgGitmodulesParse, "could not parse gitmodules blob", "")
		}
	}
	if _, ok := o.attrsFound[id]; ok {
		o.attrsDone = addID(o.attrsDone, id.Bytes())
		if large || len(data) > attrMaxFileSize {
			r.reportFor(id, object.Blob, msgGitattributesLarge, ".gitattributes too large to parse", "")
			return
		}
		// git walks the blob as a C string: lines after a NUL go unseen.
		b := cbuf(data)
		for p := 0; b.at(p) != 0; {
			eol := p
			for c := b.at(eol); c != 0 && c != '\n'; c = b.at(eol) {
				eol++
			}
			if eol-p >= attrMaxLineLength {
				r.reportFor(id, object.Blob, msgGitattributesLineLength, ".gitattributes has too long lines to parse", "")
				break
			}
			if p = eol; b.at(eol) == '\n' {
				p++
			}
		}
	}
}

// checkModulesEntry checks one "submodule.<name>.<key>" of a .gitmodules
// blob (git's fsck_gitmodules_fn).
func checkModulesEntry(r *reporter, id object.ID, key string, value *string) {
	rest, ok := strings.CutPrefix(key, "submodule.")
	if !ok {
		return
	}
	dot := strings.LastIndexByte(rest, '.')
	if dot < 0 {
		return // no subsection
	}
	name, k := rest[:dot], rest[dot+1:]
	report := func(m msgID, text string) { r.reportFor(id, object.Blob, m, text, "") }
	if badSubmoduleName(name) {
		report(msgGitmodulesName, "disallowed submodule name: "+name)
	}
	if value == nil {
		return
	}
	v := *value
	switch {
	case k == "url" && badSubmoduleURL(v):
		report(msgGitmodulesURL, "disallowed submodule url: "+v)
	case k == "path" && strings.HasPrefix(v, "-"):
		report(msgGitmodulesPath, "disallowed submodule path: "+v)
	case k == "update" && strings.HasPrefix(v, "!"): // a command
		report(msgGitmodulesUpdate, "disallowed submodule update setting: "+v)
	}
}

// Finish runs git's fsck_finish: it checks the remembered .gitmodules and
// .gitattributes blobs that Check has not seen yet, fetching each with get.
// As in git, a blob get cannot find is reported (gitmodulesMissing or
// gitattributesMissing, "unable to read .gitmodules blob"), and an object of
// another type is reported as gitmodulesBlob / gitattributesBlob. (git
// unpack-objects --strict never gets this far with a missing blob: its
// connectivity walk dies first.) Blobs are visited in id order; git uses
// hash-table order. Finish then forgets what Check remembered.
func (o *Options) Finish(get func(object.ID) (object.Type, []byte, bool)) []Problem {
	r := &reporter{o: o}
	passes := []struct {
		found, done      *map[object.ID]struct{}
		missing, nonBlob msgID
		what             string
	}{
		{&o.modulesFound, &o.modulesDone, msgGitmodulesMissing, msgGitmodulesBlob, ".gitmodules"},
		{&o.attrsFound, &o.attrsDone, msgGitattributesMissing, msgGitattributesBlob, ".gitattributes"},
	}
	for _, p := range passes {
		ids := make([]object.ID, 0, len(*p.found))
		for id := range *p.found {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i].Compare(ids[j]) < 0 })
		for _, id := range ids {
			if _, done := (*p.done)[id]; done {
				continue
			}
			t, data, ok := get(id)
			switch {
			case !ok && o.Promised:
			case !ok:
				r.reportFor(id, object.Blob, p.missing, "unable to read "+p.what+" blob", "")
			case t != object.Blob:
				r.reportFor(id, t, p.nonBlob, "non-blob found at "+p.what, "")
			default:
				o.checkBlob(r, id, data, false)
			}
		}
		*p.found, *p.done = nil, nil
	}
	return r.out
}

// TooLarge reports, for a blob the caller could not load into memory, what
// git's fsck_blob reports when it gets no buffer: gitmodulesLarge or
// gitattributesLarge if a tree named the blob .gitmodules or
// .gitattributes, nothing otherwise.
func (o *Options) TooLarge(id object.ID) []Problem {
	r := &reporter{o: o}
	o.checkBlob(r, id, nil, true)
	return r.out
}
