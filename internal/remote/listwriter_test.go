package remote

import (
	"fmt"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

const oid2 = "2222222222222222222222222222222222222222"

// TestListHead: HEAD is "@<target> HEAD" only when its target is in the
// list, else HEAD by id (git resolves the symref against the list once it
// has read it all; an unresolved one gives HEAD no id). It comes first,
// the refs after it in the upstream's order, unless more than maxHeld
// bytes of refs came before the target: then where the target is, or
// last.
func TestListHead(t *testing.T) {
	many := func(n int) []string {
		var refs []string
		for i := 0; i < n; i++ {
			refs = append(refs, fmt.Sprintf("%s refs/heads/a%06d\n", oid1, i))
		}
		return refs
	}
	lines := func(ls ...string) string { return strings.Join(ls, "") }
	over := many(maxHeld/len(many(1)[0]) + 1)
	for _, tc := range []struct {
		name string
		adv  []string
		want string
	}{
		{"target listed later",
			[]string{oid2 + " HEAD\x00symref=HEAD:refs/heads/z\n", oid1 + " refs/heads/a\n", oid2 + " refs/heads/z\n"},
			"@refs/heads/z HEAD\n" + oid1 + " refs/heads/a\n" + oid2 + " refs/heads/z\n"},
		{"target gone",
			[]string{oid2 + " HEAD\x00symref=HEAD:refs/heads/gone\n", oid1 + " refs/heads/a\n", oid2 + " refs/heads/z\n"},
			oid2 + " HEAD\n" + oid1 + " refs/heads/a\n" + oid2 + " refs/heads/z\n"},
		{"no HEAD advertised",
			[]string{oid1 + " refs/heads/a\x00symref=HEAD:refs/heads/a\n"},
			oid1 + " refs/heads/a\n"},
		{"no symref",
			[]string{oid2 + " HEAD\x00multi_ack\n", oid1 + " refs/heads/a\n"},
			oid2 + " HEAD\n" + oid1 + " refs/heads/a\n"},
		{"target after maxHeld bytes",
			append(append([]string{oid2 + " HEAD\x00symref=HEAD:refs/heads/z\n"}, over...), oid2+" refs/heads/z\n"),
			lines(over...) + "@refs/heads/z HEAD\n" + oid2 + " refs/heads/z\n"},
		{"target gone after maxHeld bytes",
			append([]string{oid2 + " HEAD\x00symref=HEAD:refs/heads/gone\n"}, over...),
			lines(over...) + oid2 + " HEAD\n"},
	} {
		adv := gittest.Advertisement(tc.adv...)
		for name, decode := range map[string]func([]byte) (string, []string, error){"go-git": listOf, "stream": streamOf} {
			out, _, err := decode(adv)
			if err != nil {
				t.Fatal(err)
			}
			if out != tc.want {
				t.Errorf("%s, %s: list printed\n%.300q\nwant\n%.300q", tc.name, name, out, tc.want)
			}
		}
	}
}
