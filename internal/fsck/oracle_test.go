package fsck

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
)

// obj is an object a test writes with `git hash-object --literally`.
type obj struct {
	t    object.Type
	data []byte
}

// gitRepo is a scratch repository in a sealed git environment.
type gitRepo struct {
	t   *testing.T
	dir string
	env []string
	f   object.Format
}

func newRepo(t *testing.T, f object.Format) *gitRepo {
	t.Helper()
	gittest.Need(t)
	r := &gitRepo{t: t, dir: t.TempDir(), env: gittest.Env(t), f: f}
	r.git(nil, "init", "-q", "--object-format="+f.String(), ".")
	return r
}

// run runs git and returns its output and error, whatever the exit code.
func (r *gitRepo) run(stdin []byte, args ...string) (stdout, stderr string, err error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = r.dir, r.env
	cmd.Stdin = bytes.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// git runs git and fails the test if it fails.
func (r *gitRepo) git(stdin []byte, args ...string) string {
	r.t.Helper()
	out, errOut, err := r.run(stdin, args...)
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, errOut)
	}
	return out
}

func (r *gitRepo) write(o obj) object.ID {
	r.t.Helper()
	out := r.git(o.data, "hash-object", "-t", o.t.String(), "--literally", "-w", "--stdin")
	id, err := object.ParseID(strings.TrimSpace(out))
	if err != nil {
		r.t.Fatal(err)
	}
	if want, _ := r.f.Sum(o.t, o.data); want != id {
		r.t.Fatalf("git named %s, object.Sum says %s", id, want)
	}
	return id
}

// result maps object ids to the lines reported about them, in order.
type result map[object.ID][]string

func (res result) String() string {
	var ids []object.ID
	for id := range res {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i].Compare(ids[j]) < 0 })
	var b strings.Builder
	for _, id := range ids {
		for _, l := range res[id] {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

var fsckLine = regexp.MustCompile(`^(error|warning) in (commit|tree|blob|tag) ([0-9a-f]{40,64}): ([a-zA-Z0-9]+: .*)$`)

// parseFsck picks the fsck messages out of what git fsck writes to stderr
// (a message holding a newline continues on the next lines).
func parseFsck(text string) result {
	res := result{}
	var last *string
	for _, l := range strings.Split(text, "\n") {
		if m := fsckLine.FindStringSubmatch(l); m != nil {
			id, _ := object.ParseID(m[3])
			res[id] = append(res[id], m[1]+" in "+m[2]+": object "+m[3]+": "+m[4])
			last = &res[id][len(res[id])-1]
		} else if last != nil && l != "" && !strings.Contains(l, ": ") {
			*last += "\n" + l
		} else {
			last = nil
		}
	}
	return res
}

// fsckOracle writes objs and returns what `git fsck --strict` says of them,
// with -c settings cfg.
func (r *gitRepo) fsckOracle(objs []obj, cfg ...string) result {
	for _, o := range objs {
		r.write(o)
	}
	var args []string
	for _, c := range cfg {
		args = append(args, "-c", c)
	}
	_, errOut, _ := r.run(nil, append(args, "fsck", "--strict", "--no-dangling", "--no-progress")...)
	return parseFsck(errOut)
}

// unpackOracle packs objs and returns what `git unpack-objects
// --strict[=list]` writes to stderr in a fresh repository, up to its fatal
// error if any.
func (r *gitRepo) unpackOracle(objs []obj, list string) string {
	var ids []string
	for _, o := range objs {
		ids = append(ids, r.write(o).String())
	}
	pack := r.git([]byte(strings.Join(ids, "\n")+"\n"), "pack-objects", "--stdout", "-q")
	dst := &gitRepo{t: r.t, dir: r.t.TempDir(), env: r.env, f: r.f}
	dst.git(nil, "init", "-q", "--object-format="+r.f.String(), ".")
	arg := "--strict"
	if list != "" {
		arg += "=" + list
	}
	_, errOut, _ := dst.run([]byte(pack), "unpack-objects", "-q", arg)
	if i := strings.Index(errOut, "fatal: "); i >= 0 && (i == 0 || errOut[i-1] == '\n') {
		errOut = errOut[:i]
	}
	return errOut
}

// renderFsck renders our problems as git fsck prints them, then reads them
// back as parseFsck reads git's.
func renderFsck(probs []Problem) result {
	var b strings.Builder
	for _, p := range probs {
		sev := "warning"
		if p.Severity == Error {
			sev = "error"
		}
		fmt.Fprintf(&b, "%s in %s %s: %s: %s\n", sev, p.Type, p.ID, p.MsgID, p.Text)
	}
	return parseFsck(b.String())
}

// renderStderr renders our problems as git unpack-objects writes them.
func renderStderr(probs []Problem) string {
	var b strings.Builder
	for _, p := range probs {
		b.WriteString(p.Stderr())
	}
	return b.String()
}

// checkAll runs Check over objs in the given order, then Finish, as a
// caller that has all of them at hand would.
func checkAll(o *Options, objs []obj, f object.Format) []Problem {
	byID := map[object.ID]obj{}
	var probs []Problem
	for _, ob := range objs {
		id, _ := f.Sum(ob.t, ob.data)
		byID[id] = ob
		probs = append(probs, o.Check(id, ob.t, ob.data, f)...)
	}
	probs = append(probs, o.Finish(func(id object.ID) (object.Type, []byte, bool) {
		ob, ok := byID[id]
		return ob.t, ob.data, ok
	})...)
	return probs
}

func diffText(t *testing.T, what string, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s differs from git\n--- ours:\n%s--- git:\n%s", what, got, want)
	}
}

// hexID is a helper for building objects: the hex of a fixed id.
func hexID(f object.Format, t object.Type, data string) string {
	id, _ := f.Sum(t, []byte(data))
	return id.String()
}

// rawTree builds tree data from (mode, name, hex id) triples.
func rawTree(entries ...string) []byte {
	var b bytes.Buffer
	for i := 0; i+2 < len(entries); i += 3 {
		raw, err := object.ParseID(entries[i+2])
		if err != nil {
			panic(fmt.Sprintf("bad id %q", entries[i+2]))
		}
		b.WriteString(entries[i] + " " + entries[i+1] + "\x00")
		b.Write(raw.Bytes())
	}
	return b.Bytes()
}
