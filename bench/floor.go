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
	f, err := os.Open(*sizes)
	if err != nil {
		return err
	}
	defer f.Close()
	type file struct {
		name string
		size int
	}
	var files []file
	maxSize := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, size, _ := strings.Cut(sc.Text(), " ")
		n, _ := strconv.Atoi(size)
		files = append(files, file{name, n})
		maxSize = max(maxSize, n)
	}
	data := make([]byte, maxSize)
	for i := range data {
		data[i] = byte(i * 7)
	}
	policy := batch.New(batch.OS, *dir, batch.Options{Method: m})
	tx := policy.Begin()
	var mu sync.Mutex
	made := map[string]bool{}
	jobs := make(chan file, 64)
	var wg sync.WaitGroup
	var firstErr error
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
	}
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				shard := filepath.Join(*dir, filepath.Dir(j.name))
				mu.Lock()
				if !made[shard] {
					made[shard] = true
					tx.Mkdir(shard, 0o777)
				}
				mu.Unlock()
				out, err := batch.OS.Create(filepath.Join(shard, "tmp_obj_"+filepath.Base(j.name)[:6]), 0o444)
				if err != nil {
					fail(err)
					continue
				}
				if _, err := out.Write(data[:j.size]); err != nil {
					fail(err)
				}
				tx.Written(out) // the same system calls as the store's
				if err := tx.Commit(out, filepath.Join(*dir, j.name)); err != nil {
					fail(err)
				}
			}
		}()
	}
	for _, j := range files {
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	if err := tx.End(); err != nil {
		return err
	}
	writeTrace(policy.Stats())
	return firstErr
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
