package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// cost is what one run cost beside its time: the processes it started
// (every program executed, the first git's own start left out: git's
// subcommands, the helper, upload-pack on the same host, and what those
// ran) and the flushes it issued — full ones (fsync, fdatasync, syncfs:
// each a flush of the device's cache) and writeout-only ones
// (sync_file_range).
type cost struct {
	processes, flushes, writeouts int
}

// counted runs cmd under strace -f and counts its cost; ok is false where
// strace is not installed.
func counted(cmd *exec.Cmd, dir string) (w cost, ok bool, err error) {
	strace, lerr := exec.LookPath("strace")
	if lerr != nil {
		return w, false, nil
	}
	file := filepath.Join(dir, "cost.strace")
	defer os.Remove(file)
	cmd.Args = append([]string{"strace", "-f", "-qq", "-e", "signal=none",
		"-e", "trace=execve,fsync,fdatasync,syncfs,sync_file_range", "-o", file}, cmd.Args...)
	cmd.Path = strace
	if _, err := wall(cmd); err != nil {
		return w, true, err
	}
	f, err := os.Open(file)
	if err != nil {
		return w, true, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		w.add(sc.Text())
	}
	w.processes-- // the git that was run
	return w, true, sc.Err()
}

// add counts one line of strace's: a call that succeeded (or one whose
// return strace reports on a line of its own, "<... resumed>").
func (w *cost) add(line string) {
	_, call, _ := strings.Cut(line, " ")
	call = strings.TrimSpace(call)
	if strings.HasPrefix(call, "<... ") {
		name, rest, _ := strings.Cut(strings.TrimPrefix(call, "<... "), " ")
		if strings.Contains(rest, "= -1") {
			return
		}
		call = name + "("
	} else if strings.HasSuffix(call, "<unfinished ...>") {
		return // counted where it resumes
	} else if strings.Contains(call, "= -1") {
		return
	}
	switch {
	case strings.HasPrefix(call, "execve("):
		w.processes++
	case strings.HasPrefix(call, "fsync("), strings.HasPrefix(call, "fdatasync("), strings.HasPrefix(call, "syncfs("):
		w.flushes++
	case strings.HasPrefix(call, "sync_file_range("):
		w.writeouts++
	}
}

// String is the cost as a column shows it.
func (w cost) String() string {
	return fmt.Sprintf("%d/%d/%d", w.processes, w.flushes, w.writeouts)
}
