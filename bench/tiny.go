package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// tinyPack returns a pack of three objects: a commit, its tree and a blob.
func tinyPack(dir string) ([]byte, error) {
	os.RemoveAll(dir)
	defer os.RemoveAll(dir)
	if err := run("", nil, "git", "init", "-q", "--bare", dir); err != nil {
		return nil, err
	}
	git := func(stdin string, args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Stdin = dir, strings.NewReader(stdin)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com",
			"GIT_COMMITTER_NAME=Bench", "GIT_COMMITTER_EMAIL=bench@example.com")
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	blob, err := git("a small file\n", "hash-object", "-w", "--stdin")
	if err != nil {
		return nil, err
	}
	tree, err := git("100644 blob "+blob+"\tREADME\n", "mktree")
	if err != nil {
		return nil, err
	}
	commit, err := git("", "commit-tree", "-m", "one commit", tree)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("git", "pack-objects", "--stdout", "-q")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(commit+"\n"+tree+"\n"+blob+"\n")
	return cmd.Output()
}

// tinyRuns times n invocations each of ours and git (batch, alternating)
// on a pack of three objects, each into a fresh repository after a sync,
// without /usr/bin/time or tracing; then one traced run each for the
// counters. It returns the wall times, ours then git, and the traced runs.
func tinyRuns(r *runner, n int) (ours, git []float64, traced []sample, err error) {
	p, err := tinyPack(filepath.Join(r.work, "tinysrc"))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("tiny pack: %v", err)
	}
	vs := []variant{
		{name: "ours batch", argv: []string{"ours", "-q"}, config: cfgBatch},
		{name: "git batch", git: true, argv: []string{"git", "unpack-objects", "-q"}, config: cfgBatch},
	}
	for i := 0; i < n; i++ {
		for k := range vs {
			v := vs[(k+i)%2]
			repo, err := r.repoFor(v)
			if err != nil {
				return nil, nil, nil, err
			}
			cmd := r.command(v, repo)
			cmd.Stdin = bytes.NewReader(p)
			syncAll()
			start := time.Now()
			out, err := cmd.CombinedOutput()
			wall := time.Since(start).Seconds()
			os.RemoveAll(repo)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("%s on 3 objects: %v\n%s", v.name, err, out)
			}
			if v.git {
				git = append(git, wall)
			} else {
				ours = append(ours, wall)
			}
		}
	}
	packPath := filepath.Join(r.work, "tiny.pack")
	if err := os.WriteFile(packPath, p, 0o644); err != nil {
		return nil, nil, nil, err
	}
	saved := r.packPath
	r.packPath = packPath
	defer func() { r.packPath = saved }()
	for _, v := range vs {
		s, err := r.measure(v)
		if err != nil {
			return nil, nil, nil, err
		}
		os.RemoveAll(r.last)
		traced = append(traced, s)
	}
	return ours, git, traced, nil
}
