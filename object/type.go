package object

import "fmt"

// Type is a git object type, numbered as in git's enum object_type and in the
// pack format. OfsDelta and RefDelta only occur inside packs.
type Type uint8

// The object types. The numbers are the ones the pack format uses.
const (
	Bad      Type = 0
	Commit   Type = 1
	Tree     Type = 2
	Blob     Type = 3
	Tag      Type = 4
	OfsDelta Type = 6
	RefDelta Type = 7
)

var typeNames = [...]string{Commit: "commit", Tree: "tree", Blob: "blob", Tag: "tag", OfsDelta: "ofs-delta", RefDelta: "ref-delta"}

// String returns git's name for t ("commit", "tree", "blob", "tag").
func (t Type) String() string {
	if int(t) < len(typeNames) && typeNames[t] != "" {
		return typeNames[t]
	}
	return fmt.Sprintf("type %d", uint8(t))
}

// IsObject reports whether t is one of the four types an object can have.
func (t Type) IsObject() bool { return t >= Commit && t <= Tag }

// IsDelta reports whether t is one of the two pack delta entry types.
func (t Type) IsDelta() bool { return t == OfsDelta || t == RefDelta }

// ParseType returns the object type named s, as written in a loose object
// header; ok is false for anything else.
func ParseType(s []byte) (t Type, ok bool) {
	switch string(s) {
	case "commit":
		return Commit, true
	case "tree":
		return Tree, true
	case "blob":
		return Blob, true
	case "tag":
		return Tag, true
	}
	return Bad, false
}
