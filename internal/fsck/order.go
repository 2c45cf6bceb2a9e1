package fsck

import "bytes"

// Results of verifyOrdered.
const (
	treeOrdered   = 0
	treeUnordered = -1
	treeHasDups   = -2
)

func isLessThanSlash(c byte) bool { return c != 0 && c < '/' }

// verifyOrdered compares two consecutive tree entries as git's
// verify_ordered does. Entries sort by name, where a directory's name
// compares as if it ended in '/'. So "a.c" < "a" (dir) < "a0", and a file
// "foo" and a directory "foo" may be far apart ("foo", "foo.bar", "foo/"):
// candidates keeps the file names that a later directory could duplicate.
func verifyOrdered(mode1 uint16, name1 []byte, mode2 uint16, name2 []byte, candidates *[][]byte) int {
	n := len(name1)
	if len(name2) < n {
		n = len(name2)
	}
	if cmp := bytes.Compare(name1[:n], name2[:n]); cmp < 0 {
		return treeOrdered
	} else if cmp > 0 {
		return treeUnordered
	}
	c1, c2 := cbuf(name1).at(n), cbuf(name2).at(n)
	if c1 == 0 && c2 == 0 {
		return treeHasDups
	}
	if c1 == 0 && mode1&modeTypeMask == modeDir {
		c1 = '/'
	}
	if c2 == 0 && mode2&modeTypeMask == modeDir {
		c2 = '/'
	}

	if c1 == 0 && isLessThanSlash(c2) {
		*candidates = append(*candidates, name1)
	} else if c2 == '/' && isLessThanSlash(c1) {
		for len(*candidates) > 0 {
			top := (*candidates)[len(*candidates)-1]
			*candidates = (*candidates)[:len(*candidates)-1]
			if !bytes.HasPrefix(name2, top) {
				continue
			}
			rest := name2[len(top):]
			if len(rest) == 0 {
				return treeHasDups
			}
			if isLessThanSlash(rest[0]) {
				*candidates = append(*candidates, top)
				break
			}
		}
	}
	if c1 < c2 {
		return treeOrdered
	}
	return treeUnordered
}
