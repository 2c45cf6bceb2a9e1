// Package fsck checks git objects the way git 2.39's fsck.c does with
// FSCK_OPTIONS_STRICT, as used by `git fsck --strict` and
// `git unpack-objects --strict`: the same checks, message ids, texts and
// default severities, so that a caller printing
//
//	"error: " + p.String()   (Severity Error)
//	"warning: " + p.String() (Severity Warn)
//
// writes what git would have written.
package fsck

import "strings"

// msgID numbers git's fsck messages, in the order of git 2.39's fsck.h.
type msgID int

const (
	// fatal: cannot be demoted below error
	msgNulInHeader msgID = iota
	msgUnterminatedHeader
	// errors
	msgBadDate
	msgBadDateOverflow
	msgBadEmail
	msgBadName
	msgBadObjectSha1
	msgBadParentSha1
	msgBadTimezone
	msgBadTree
	msgBadTreeSha1
	msgBadType
	msgDuplicateEntries
	msgMissingAuthor
	msgMissingCommitter
	msgMissingEmail
	msgMissingNameBeforeEmail
	msgMissingObject
	msgMissingSpaceBeforeDate
	msgMissingSpaceBeforeEmail
	msgMissingTag
	msgMissingTagEntry
	msgMissingTree
	msgMissingType
	msgMissingTypeEntry
	msgMultipleAuthors
	msgTreeNotSorted
	msgUnknownType
	msgZeroPaddedDate
	msgGitmodulesMissing
	msgGitmodulesBlob
	msgGitmodulesLarge
	msgGitmodulesName
	msgGitmodulesSymlink
	msgGitmodulesURL
	msgGitmodulesPath
	msgGitmodulesUpdate
	msgGitattributesMissing
	msgGitattributesLarge
	msgGitattributesLineLength
	msgGitattributesBlob
	// warnings
	msgEmptyName
	msgFullPathname
	msgHasDot
	msgHasDotdot
	msgHasDotgit
	msgNullSha1
	msgZeroPaddedFilemode
	msgNulInCommit
	// infos (reported as warnings)
	msgBadFilemode
	msgGitmodulesParse
	msgGitignoreSymlink
	msgGitattributesSymlink
	msgMailmapSymlink
	msgBadTagName
	msgMissingTaggerEntry
	// ignored unless asked for
	msgExtraHeaderEntry

	numMsgs
)

// msgInfo describes one message: git's upper-case name, its default
// severity, and whether it is fatal (may not be set below Error).
type msgInfo struct {
	name  string
	def   Severity
	fatal bool
}

var msgTable = [numMsgs]msgInfo{
	msgNulInHeader:             {"NUL_IN_HEADER", Error, true},
	msgUnterminatedHeader:      {"UNTERMINATED_HEADER", Error, true},
	msgBadDate:                 {"BAD_DATE", Error, false},
	msgBadDateOverflow:         {"BAD_DATE_OVERFLOW", Error, false},
	msgBadEmail:                {"BAD_EMAIL", Error, false},
	msgBadName:                 {"BAD_NAME", Error, false},
	msgBadObjectSha1:           {"BAD_OBJECT_SHA1", Error, false},
	msgBadParentSha1:           {"BAD_PARENT_SHA1", Error, false},
	msgBadTimezone:             {"BAD_TIMEZONE", Error, false},
	msgBadTree:                 {"BAD_TREE", Error, false},
	msgBadTreeSha1:             {"BAD_TREE_SHA1", Error, false},
	msgBadType:                 {"BAD_TYPE", Error, false},
	msgDuplicateEntries:        {"DUPLICATE_ENTRIES", Error, false},
	msgMissingAuthor:           {"MISSING_AUTHOR", Error, false},
	msgMissingCommitter:        {"MISSING_COMMITTER", Error, false},
	msgMissingEmail:            {"MISSING_EMAIL", Error, false},
	msgMissingNameBeforeEmail:  {"MISSING_NAME_BEFORE_EMAIL", Error, false},
	msgMissingObject:           {"MISSING_OBJECT", Error, false},
	msgMissingSpaceBeforeDate:  {"MISSING_SPACE_BEFORE_DATE", Error, false},
	msgMissingSpaceBeforeEmail: {"MISSING_SPACE_BEFORE_EMAIL", Error, false},
	msgMissingTag:              {"MISSING_TAG", Error, false},
	msgMissingTagEntry:         {"MISSING_TAG_ENTRY", Error, false},
	msgMissingTree:             {"MISSING_TREE", Error, false},
	msgMissingType:             {"MISSING_TYPE", Error, false},
	msgMissingTypeEntry:        {"MISSING_TYPE_ENTRY", Error, false},
	msgMultipleAuthors:         {"MULTIPLE_AUTHORS", Error, false},
	msgTreeNotSorted:           {"TREE_NOT_SORTED", Error, false},
	msgUnknownType:             {"UNKNOWN_TYPE", Error, false},
	msgZeroPaddedDate:          {"ZERO_PADDED_DATE", Error, false},
	msgGitmodulesMissing:       {"GITMODULES_MISSING", Error, false},
	msgGitmodulesBlob:          {"GITMODULES_BLOB", Error, false},
	msgGitmodulesLarge:         {"GITMODULES_LARGE", Error, false},
	msgGitmodulesName:          {"GITMODULES_NAME", Error, false},
	msgGitmodulesSymlink:       {"GITMODULES_SYMLINK", Error, false},
	msgGitmodulesURL:           {"GITMODULES_URL", Error, false},
	msgGitmodulesPath:          {"GITMODULES_PATH", Error, false},
	msgGitmodulesUpdate:        {"GITMODULES_UPDATE", Error, false},
	msgGitattributesMissing:    {"GITATTRIBUTES_MISSING", Error, false},
	msgGitattributesLarge:      {"GITATTRIBUTES_LARGE", Error, false},
	msgGitattributesLineLength: {"GITATTRIBUTES_LINE_LENGTH", Error, false},
	msgGitattributesBlob:       {"GITATTRIBUTES_BLOB", Error, false},
	msgEmptyName:               {"EMPTY_NAME", Warn, false},
	msgFullPathname:            {"FULL_PATHNAME", Warn, false},
	msgHasDot:                  {"HAS_DOT", Warn, false},
	msgHasDotdot:               {"HAS_DOTDOT", Warn, false},
	msgHasDotgit:               {"HAS_DOTGIT", Warn, false},
	msgNullSha1:                {"NULL_SHA1", Warn, false},
	msgZeroPaddedFilemode:      {"ZERO_PADDED_FILEMODE", Warn, false},
	msgNulInCommit:             {"NUL_IN_COMMIT", Warn, false},
	msgBadFilemode:             {"BAD_FILEMODE", Info, false},
	msgGitmodulesParse:         {"GITMODULES_PARSE", Info, false},
	msgGitignoreSymlink:        {"GITIGNORE_SYMLINK", Info, false},
	msgGitattributesSymlink:    {"GITATTRIBUTES_SYMLINK", Info, false},
	msgMailmapSymlink:          {"MAILMAP_SYMLINK", Info, false},
	msgBadTagName:              {"BAD_TAG_NAME", Info, false},
	msgMissingTaggerEntry:      {"MISSING_TAGGER_ENTRY", Info, false},
	msgExtraHeaderEntry:        {"EXTRA_HEADER_ENTRY", Ignore, false},
}

// camel and downcased hold the two spellings git derives from each name:
// "badTreeSha1" (printed) and "badtreesha1" (matched when parsing).
var camel, downcased [numMsgs]string

func init() {
	for i, m := range msgTable {
		var c, d strings.Builder
		up := false
		for j := 0; j < len(m.name); j++ {
			ch := m.name[j]
			if ch == '_' {
				up = true
				continue
			}
			lc := ch
			if 'A' <= ch && ch <= 'Z' {
				lc = ch + 'a' - 'A'
			}
			d.WriteByte(lc)
			if up {
				c.WriteByte(ch)
			} else {
				c.WriteByte(lc)
			}
			up = false
		}
		camel[i], downcased[i] = c.String(), d.String()
	}
}

// String returns git's camelCase id of the message, e.g. "badTreeSha1".
func (m msgID) String() string { return camel[m] }

// lookupMsg finds a message by its id compared case-insensitively, as git
// does (underscores are not ignored: "bad_name" is not "badName").
func lookupMsg(id string) (msgID, bool) {
	l := asciiLower(id)
	for i := msgID(0); i < numMsgs; i++ {
		if downcased[i] == l {
			return i, true
		}
	}
	return 0, false
}

// asciiLower lowers A-Z only, like git's tolower().
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// MsgIDs returns the camelCase ids of all messages git 2.39 knows, in the
// order of git's table.
func MsgIDs() []string {
	out := make([]string, numMsgs)
	copy(out, camel[:])
	return out
}
