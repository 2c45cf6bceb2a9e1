package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// packFor writes `git pack-objects --revs` of a selection into dir, once:
// the file is named after the repository and the revisions, and kept.
func packFor(repo, dir string, s selection) (string, error) {
	h := sha256.Sum256([]byte(repo + "\n" + strings.Join(s.revs, "\n")))
	path := filepath.Join(dir, "real-"+hex.EncodeToString(h[:6])+".pack")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return "", err
	}
	defer f.Close()
	cmd := exec.Command("git", "pack-objects", "--revs", "--stdout", "--delta-base-offset", "-q")
	cmd.Dir = repo
	cmd.Stdin = strings.NewReader(strings.Join(s.revs, "\n") + "\n")
	cmd.Stdout = f
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("pack-objects of %s: %v: %s", s.label, err, stderr.String())
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return path, os.Rename(f.Name(), path)
}

// packRepo makes (once) a bare repository holding the pack at path, with
// a ref for every commit and tag that nothing else in it points to
// (refs/heads/main the first of them), so that a pack given without its
// repository can be cloned and cut into prefixes too.
func packRepo(dir, path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(fmt.Appendf(nil, "%s %d %d", path, fi.Size(), fi.ModTime().UnixNano()))
	repo := filepath.Join(dir, "packrepo-"+hex.EncodeToString(h[:6]))
	if _, err := os.Stat(filepath.Join(repo, "done")); err == nil {
		return repo, nil
	}
	os.RemoveAll(repo)
	if err := run("", nil, "git", "init", "-q", "--bare", "-b", "main", repo); err != nil {
		return "", err
	}
	in, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer in.Close()
	if err := run(repo, in, "git", "index-pack", "--stdin"); err != nil {
		return "", err
	}
	cmd := exec.Command("git", "fsck", "--connectivity-only", "--dangling", "--no-progress")
	cmd.Dir = repo
	out, _ := cmd.Output() // exits non-zero for dangling objects
	var refs strings.Builder
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != "dangling" || (f[1] != "commit" && f[1] != "tag") {
			continue
		}
		switch {
		case f[1] == "tag":
			fmt.Fprintf(&refs, "create refs/tags/t-%s %s\n", f[2][:12], f[2])
		case !strings.Contains(refs.String(), "refs/heads/main "):
			fmt.Fprintf(&refs, "create refs/heads/main %s\n", f[2])
		default:
			fmt.Fprintf(&refs, "create refs/heads/tip-%s %s\n", f[2][:12], f[2])
		}
	}
	if err := run(repo, strings.NewReader(refs.String()), "git", "update-ref", "--stdin"); err != nil {
		return "", err
	}
	return repo, os.WriteFile(filepath.Join(repo, "done"), nil, 0o644)
}
