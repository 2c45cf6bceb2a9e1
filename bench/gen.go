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
	rng := rand.New(rand.NewPCG(1, 2))
	files, err := goSources(h.files, rng)
	if err != nil {
		return nil, err
	}
	if err := run("", nil, "git", "init", "-q", "--bare", "-b", "main", dir); err != nil {
		return nil, err
	}
	err = fastImport(dir, func(w *bufio.Writer) { writeHistory(w, files, h.commits, rng) })
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("git", "pack-objects", "--all", "--delta-base-offset", "--stdout", "-q")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader("")
	return cmd.Output()
}

// sourceFile is a file of the generated history: its path in the tree,
// and its content as the commits so far left it.
type sourceFile struct {
	path string
	data []byte
}

// goSources returns n source files of the Go distribution's src/ tree,
// chosen at random by rng, each read.
func goSources(n int, rng *rand.Rand) ([]sourceFile, error) {
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
	if len(paths) < n {
		return nil, fmt.Errorf("only %d source files under %s", len(paths), src)
	}
	rng.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
	files := make([]sourceFile, n)
	for i, p := range paths[:n] {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(src, p)
		files[i] = sourceFile{rel, data}
	}
	return files, nil
}

// fastImport runs git fast-import in the repository dir on the stream
// that write writes.
func fastImport(dir string, write func(w *bufio.Writer)) error {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(dir, pr, "git", "fast-import", "--quiet")
		pr.CloseWithError(fmt.Errorf("fast-import ended: %v", err)) // unblock the writer
		done <- err
	}()
	w := bufio.NewWriterSize(pw, 1<<20)
	write(w)
	werr := w.Flush()
	pw.Close()
	if err := <-done; err != nil {
		return err
	}
	return werr
}

// writeHistory writes the fast-import stream of the generated history: a
// first commit of every file, then commits of small edits to one to four
// of them, chosen by rng, and a tag every 100 commits.
func writeHistory(w *bufio.Writer, files []sourceFile, commits int, rng *rand.Rand) {
	commit := func(c int, edit []int) {
		fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\ncommitter Bench <bench@example.com> %d +0000\n", c+1, 1700000000+60*c)
		msg := fmt.Sprintf("commit %d\n", c)
		fmt.Fprintf(w, "data %d\n%s", len(msg), msg)
		if c > 0 {
			fmt.Fprintf(w, "from :%d\n", c)
		}
		for _, i := range edit {
			fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n", files[i].path, len(files[i].data))
			w.Write(files[i].data)
			w.WriteByte('\n')
		}
	}
	all := make([]int, len(files))
	for i := range all {
		all[i] = i
	}
	commit(0, all)
	for c := 1; c <= commits; c++ {
		var edit []int
		for k := 0; k < 1+rng.IntN(4); k++ {
			i := rng.IntN(len(files))
			files[i].data = editLines(files[i].data, c, rng)
			edit = append(edit, i)
		}
		commit(c, edit)
		if c%100 == 0 {
			fmt.Fprintf(w, "tag v%d\nfrom :%d\ntagger Bench <bench@example.com> %d +0000\ndata 4\ntag\n", c, c+1, 1700000000+60*c)
		}
	}
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
