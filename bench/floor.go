package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/git-durable/git-durable/batch"
)

// floor creates the files an unpack creates — same names, same sizes, the
// same system calls through the same durability code (temporary file,
// write, writeout, rename, one flush after the last rename) — and does no
// inflate, hash or deflate: what the filesystem allows.
func floor(args []string) error {
	fl := flag.NewFlagSet("floor", flag.ExitOnError)
	sizes := fl.String("sizes", "", "file of \"<shard>/<name> <size>\" lines")
	dir := fl.String("dir", "", "objects directory to fill")
	method := fl.String("method", "batch", "sync method")
	fl.Parse(args)
	m, ok := batch.ParseMethod(*method)
	if !ok {
		return fmt.Errorf("unknown method %q", *method)
	}
	files, err := readSizes(*sizes)
	if err != nil {
		return err
	}
	policy := batch.New(batch.OS, *dir, batch.Options{Method: m})
	tx := policy.Begin()
	ferr := fill(tx, *dir, files)
	if err := tx.End(); err != nil {
		return err
	}
	writeTrace(policy.Stats())
	return ferr
}

// sizedFile is a file the floor creates: its name under the objects
// directory ("<shard>/<name>") and its size.
type sizedFile struct {
	name string
	size int
}

// readSizes reads the "<shard>/<name> <size>" lines of the file path
// (what writeSizes wrote).
func readSizes(path string) ([]sizedFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var files []sizedFile
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, size, _ := strings.Cut(sc.Text(), " ")
		n, _ := strconv.Atoi(size)
		files = append(files, sizedFile{name, n})
	}
	return files, nil
}

// filler creates the floor's files through one transaction, from as many
// goroutines as GOMAXPROCS.
type filler struct {
	tx   *batch.Transaction
	dir  string
	data []byte // every file holds the first bytes of it, as many as its size
	mu   sync.Mutex
	made map[string]bool // the fan-out directories made
	err  error           // the first failure
}

// fill creates files under dir through tx and returns the first failure.
func fill(tx *batch.Transaction, dir string, files []sizedFile) error {
	maxSize := 0
	for _, f := range files {
		maxSize = max(maxSize, f.size)
	}
	f := &filler{tx: tx, dir: dir, data: make([]byte, maxSize), made: map[string]bool{}}
	for i := range f.data {
		f.data[i] = byte(i * 7)
	}
	jobs := make(chan sizedFile, 64)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				f.create(j)
			}
		}()
	}
	for _, j := range files {
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	return f.err
}

// create makes the file j with the system calls the store makes a loose
// object with: its fan-out directory once, a temporary file, its data,
// and the commit that renames it.
func (f *filler) create(j sizedFile) {
	shard := filepath.Join(f.dir, filepath.Dir(j.name))
	f.mu.Lock()
	if !f.made[shard] {
		f.made[shard] = true
		f.tx.Mkdir(shard, 0o777)
	}
	f.mu.Unlock()
	out, err := batch.OS.Create(filepath.Join(shard, "tmp_obj_"+filepath.Base(j.name)[:6]), 0o444)
	if err != nil {
		f.fail(err)
		return
	}
	if _, err := out.Write(f.data[:j.size]); err != nil {
		f.fail(err)
	}
	f.tx.Written(out) // the same system calls as the store's
	if err := f.tx.Commit(out, filepath.Join(f.dir, j.name)); err != nil {
		f.fail(err)
	}
}

// fail keeps err unless a failure is kept already.
func (f *filler) fail(err error) {
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
}

// writeTrace writes the floor's fsync counters as trace2 counter events.
func writeTrace(st batch.Stats) {
	path := os.Getenv("GIT_TRACE2_EVENT")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "{\"event\":\"counter\",\"category\":\"fsync\",\"name\":\"writeout-only\",\"count\":%d}\n", st.WriteoutOnly)
	fmt.Fprintf(f, "{\"event\":\"counter\",\"category\":\"fsync\",\"name\":\"hardware-flush\",\"count\":%d}\n", st.HardwareFlush)
}

// writeSizes lists the loose objects of dir as "<shard>/<name> <size>".
func writeSizes(dir, out string) (int, error) {
	f, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	n, err := eachLoose(dir, func(shard string, e os.DirEntry) error {
		info, err := e.Info()
		if err == nil {
			fmt.Fprintf(w, "%s/%s %d\n", shard, e.Name(), info.Size())
		}
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, w.Flush()
}

// eachLoose calls fn for every loose object under the objects directory
// dir (temporary files left out) and returns how many there are.
func eachLoose(dir string, fn func(shard string, e os.DirEntry) error) (int, error) {
	n := 0
	shards, _ := os.ReadDir(dir)
	for _, s := range shards {
		if len(s.Name()) != 2 {
			continue
		}
		entries, _ := os.ReadDir(filepath.Join(dir, s.Name()))
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "tmp_") {
				continue
			}
			if err := fn(s.Name(), e); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}
