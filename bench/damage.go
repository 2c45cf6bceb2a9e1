package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// flipBlob flips a byte in the entry of a blob of the oldest pack of the
// mirror dir.
func flipBlob(dir string) error {
	packs, err := packsByAge(dir)
	if err != nil {
		return err
	}
	idx := strings.TrimSuffix(packs[0], ".pack") + ".idx"
	cmd := exec.Command("git", "show-index")
	f, err := os.Open(idx)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd.Stdin = f
	lines, err := cmd.Output()
	if err != nil {
		return err
	}
	for _, l := range strings.Split(string(lines), "\n") {
		fs := strings.Fields(l)
		if len(fs) < 2 {
			continue
		}
		if t, _ := gitOut(dir, "cat-file", "-t", fs[1]); strings.TrimSpace(t) == "blob" {
			off, _ := strconv.ParseInt(fs[0], 10, 64)
			return flipAt(packs[0], off+4)
		}
	}
	return fmt.Errorf("no blob in %s", packs[0])
}

// cutNewest cuts the newest pack of the mirror dir to a tenth.
func cutNewest(dir string) error {
	packs, err := packsByAge(dir)
	if err != nil {
		return err
	}
	p := packs[len(packs)-1]
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	os.Chmod(p, 0o644)
	return os.Truncate(p, st.Size()/10)
}

// packsByAge lists the packs of the mirror dir, the oldest first.
func packsByAge(dir string) ([]string, error) {
	packs, err := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.pack"))
	if err != nil || len(packs) == 0 {
		return nil, fmt.Errorf("no pack in %s: %v", dir, err)
	}
	sort.Slice(packs, func(i, j int) bool {
		a, _ := os.Stat(packs[i])
		b, _ := os.Stat(packs[j])
		return a.ModTime().Before(b.ModTime())
	})
	return packs, nil
}

// flipAt flips the byte at off of the file path.
func flipAt(path string, off int64) error {
	os.Chmod(path, 0o644)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	b := []byte{0}
	if _, err := f.ReadAt(b, off); err != nil {
		return err
	}
	b[0] ^= 0x40
	_, err = f.WriteAt(b, off)
	return err
}
