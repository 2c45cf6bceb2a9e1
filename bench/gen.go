package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// history describes the generated repository.
type history struct {
	files, commits int
}

// generate makes a bare repository in dir whose history is made of real
// source files (the Go distribution's src/ tree) and many commits of small
// edits to them, with fast-import, and returns `git pack-objects --all
// --delta-base-offset` of it: OFS deltas and long chains, as a clone sends.
func generate(dir string, h history) ([]byte, error) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	var paths []string
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.Contains(p, "testdata") {
			paths = append(paths, p)
		}
		return nil
	})
	sort.Strings(paths)
	if len(paths) < h.files {
		return nil, fmt.Errorf("only %d source files under %s", len(paths), src)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
	paths = paths[:h.files]
	contents := make([][]byte, h.files)
	for i, p := range paths {
		if contents[i], err = os.ReadFile(p); err != nil {
			return nil, err
		}
		paths[i], _ = filepath.Rel(src, p)
	}
	if err := run("", nil, "git", "init", "-q", "--bare", "-b", "main", dir); err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(dir, pr, "git", "fast-import", "--quiet")
		pr.CloseWithError(fmt.Errorf("fast-import ended: %v", err)) // unblock the writer
		done <- err
	}()
	w := bufio.NewWriterSize(pw, 1<<20)
	commit := func(c int, edit []int) {
		fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\ncommitter Bench <bench@example.com> %d +0000\n", c+1, 1700000000+60*c)
		msg := fmt.Sprintf("commit %d\n", c)
		fmt.Fprintf(w, "data %d\n%s", len(msg), msg)
		if c > 0 {
			fmt.Fprintf(w, "from :%d\n", c)
		}
		for _, i := range edit {
			fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n", paths[i], len(contents[i]))
			w.Write(contents[i])
			w.WriteByte('\n')
		}
	}
	all := make([]int, h.files)
	for i := range all {
		all[i] = i
	}
	commit(0, all)
	for c := 1; c <= h.commits; c++ {
		var edit []int
		for k := 0; k < 1+rng.IntN(4); k++ {
			i := rng.IntN(h.files)
			contents[i] = editLines(contents[i], c, rng)
			edit = append(edit, i)
		}
		commit(c, edit)
		if c%100 == 0 {
			fmt.Fprintf(w, "tag v%d\nfrom :%d\ntagger Bench <bench@example.com> %d +0000\ndata 4\ntag\n", c, c+1, 1700000000+60*c)
		}
	}
	werr := w.Flush()
	pw.Close()
	if err := <-done; err != nil {
		return nil, err
	}
	if werr != nil {
		return nil, werr
	}
	cmd := exec.Command("git", "pack-objects", "--all", "--delta-base-offset", "--stdout", "-q")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader("")
	return cmd.Output()
}

// editLines changes a few lines of a source file, as a small commit does.
func editLines(b []byte, c int, rng *rand.Rand) []byte {
	lines := bytes.SplitAfter(b, []byte("\n"))
	for k := 0; k < 1+rng.IntN(3); k++ {
		at := rng.IntN(len(lines))
		lines[at] = fmt.Appendf(nil, "\t// edited in commit %d: %x\n", c, rng.Uint64())
	}
	return bytes.Join(lines, nil)
}

// bigBlobPack returns a pack holding one blob of size random bytes.
func bigBlobPack(dir string, size int) ([]byte, error) {
	if err := run("", nil, "git", "init", "-q", "--bare", dir); err != nil {
		return nil, err
	}
	data := make([]byte, size)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i+8 <= len(data); i += 8 {
		v := rng.Uint64()
		for k := 0; k < 8; k++ {
			data[i+k] = byte(v >> (8 * k))
		}
	}
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Dir, cmd.Stdin = dir, bytes.NewReader(data)
	id, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	cmd = exec.Command("git", "pack-objects", "--stdout", "-q")
	cmd.Dir, cmd.Stdin = dir, bytes.NewReader(id)
	return cmd.Output()
}

func run(dir string, stdin io.Reader, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Stdin = dir, stdin
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}
