package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// syscallsPerObject runs ours and git in batch mode once each under
// `strace -c -f` and returns the system calls per object (child processes
// such as `git config` included).
func syscallsPerObject(r *runner, objects int) (map[string]float64, error) {
	out := map[string]float64{}
	if _, err := exec.LookPath("strace"); err != nil {
		fmt.Fprintln(os.Stderr, "strace is not installed: no syscall counts")
		return out, nil
	}
	for _, v := range []variant{
		{name: "ours batch", argv: []string{"ours", "-q"}, config: cfgBatch},
		{name: "git batch", argv: []string{"git", "unpack-objects", "-q"}, config: cfgBatch},
	} {
		repo, err := r.repoFor(v)
		if err != nil {
			return nil, err
		}
		cmd := r.command(v, repo)
		file := filepath.Join(r.work, "strace.txt")
		cmd.Args = append([]string{"strace", "-c", "-f", "-o", file}, cmd.Args...)
		cmd.Path, _ = exec.LookPath("strace")
		in, err := os.Open(r.packPath)
		if err != nil {
			return nil, err
		}
		cmd.Stdin = in
		b, err := cmd.CombinedOutput()
		in.Close()
		if err != nil {
			return nil, fmt.Errorf("strace %s: %v\n%s", v.name, err, b)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		out[v.name] = float64(totalCalls(string(data))) / float64(objects)
	}
	return out, nil
}

// totalCalls reads the calls column of strace -c's total line.
func totalCalls(s string) int {
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) >= 5 && f[len(f)-1] == "total" {
			n, _ := strconv.Atoi(f[3])
			return n
		}
	}
	return 0
}

// bigBlob measures ours and git on a pack holding one blob of mb MB, twice
// each, alternating.
func bigBlob(r *runner, mb int) ([]sample, error) {
	path := filepath.Join(r.work, fmt.Sprintf("big-%d.pack", mb))
	if _, err := os.Stat(path); err != nil {
		src := filepath.Join(r.work, "bigsrc")
		os.RemoveAll(src)
		p, err := bigBlobPack(src, mb<<20)
		os.RemoveAll(src)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, p, 0o644); err != nil {
			return nil, err
		}
	}
	saved := r.packPath
	r.packPath = path
	defer func() { r.packPath = saved }()
	var out []sample
	for round := 0; round < 2; round++ {
		for _, v := range []variant{
			{name: "ours batch", argv: []string{"ours", "-q"}, config: cfgBatch},
			{name: "git batch", argv: []string{"git", "unpack-objects", "-q"}, config: cfgBatch},
		} {
			s, err := r.measure(v)
			if err != nil {
				return nil, err
			}
			if s.objectsSeen != 1 {
				return nil, fmt.Errorf("%s on the big blob left %d objects", v.name, s.objectsSeen)
			}
			out = append(out, s)
		}
	}
	return out, nil
}
