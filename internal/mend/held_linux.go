package mend

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// busy reads which live processes work in the git directory dir: those
// whose working directory, an open file, a mapped file or whose GIT_DIR
// lies in it (every /proc/<pid>), but this one. git does not keep its
// lock files open (it closes a ref's lock once written, and holds a
// prepared transaction's locks closed), so what holds a lock is a process
// in the repository. A process whose /proc entries the runner may not read
// (another user's, without root) is not seen: a lock in a repository the
// runner's user owns is that user's git's.
func busy(dir string) (live []int, known bool) {
	pids, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	dir = filepath.Clean(dir)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	in := func(p string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }
	self := os.Getpid()
	for _, e := range pids {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		proc := filepath.Join("/proc", e.Name())
		if works(proc, in) {
			live = append(live, pid)
		}
	}
	return live, true
}

// works reports whether the process of /proc/<pid> proc has its working
// directory, an open file, a mapped file or its GIT_DIR where in says.
func works(proc string, in func(string) bool) bool {
	if cwd, err := os.Readlink(filepath.Join(proc, "cwd")); err == nil && in(cwd) {
		return true
	}
	fds, _ := os.ReadDir(filepath.Join(proc, "fd"))
	for _, fd := range fds {
		if p, err := os.Readlink(filepath.Join(proc, "fd", fd.Name())); err == nil && in(p) {
			return true
		}
	}
	if maps, err := os.ReadFile(filepath.Join(proc, "maps")); err == nil {
		for _, l := range bytes.Split(maps, []byte("\n")) {
			if i := bytes.IndexByte(l, '/'); i >= 0 && in(string(l[i:])) {
				return true
			}
		}
	}
	if env, err := os.ReadFile(filepath.Join(proc, "environ")); err == nil {
		for _, kv := range bytes.Split(env, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, []byte("GIT_DIR=")); ok && in(filepath.Clean(string(v))) {
				return true
			}
		}
	}
	return false
}
