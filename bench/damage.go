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

// zeroMid returns a damage that writes n zero bytes in the middle of the
// largest pack of the mirror dir, as a disk's lost sectors leave it.
func zeroMid(n int64) func(string) error {
	return func(dir string) error {
		p, size, err := largestPack(dir)
		if err != nil {
			return err
		}
		os.Chmod(p, 0o644)
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.WriteAt(make([]byte, n), size/2)
		return err
	}
}

// cutTo returns a damage that cuts the largest pack of the mirror dir to
// the share part of its bytes (its index intact).
func cutTo(part float64) func(string) error {
	return func(dir string) error {
		p, size, err := largestPack(dir)
		if err != nil {
			return err
		}
		os.Chmod(p, 0o644)
		return os.Truncate(p, int64(float64(size)*part))
	}
}

// dropIndex removes the index of the largest pack of the mirror dir.
func dropIndex(dir string) error {
	p, _, err := largestPack(dir)
	if err != nil {
		return err
	}
	return os.Remove(strings.TrimSuffix(p, ".pack") + ".idx")
}

// largestPack returns the largest pack of the mirror dir and its size.
func largestPack(dir string) (string, int64, error) {
	packs, err := packsByAge(dir)
	if err != nil {
		return "", 0, err
	}
	var best string
	var size int64
	for _, p := range packs {
		if st, err := os.Stat(p); err == nil && st.Size() > size {
			best, size = p, st.Size()
		}
	}
	return best, size, nil
}

// dirBytes is the bytes of the files under dirs, each file counted once
// whatever its names (a hard link, in a quarantine or a reclone's new
// repository, is the same bytes on the disk).
func dirBytes(dirs ...string) int64 {
	var n int64
	seen := map[[2]uint64]bool{}
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if st, err := d.Info(); err == nil {
					if id, ok := inode(st); ok {
						if seen[id] {
							return nil
						}
						seen[id] = true
					}
					n += st.Size()
				}
			}
			return nil
		})
	}
	return n
}
