package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// timed runs cmd and returns its wall and CPU time, its peak RSS and the
// fsync counters it wrote as trace2 events.
func (r *runner) timed(cmd *exec.Cmd) (sample, error) {
	var s sample
	trace := filepath.Join(r.work, "trace2.json")
	os.Remove(trace)
	rssFile := measureRSS(cmd, r.work)
	cmd.Env = append(cmd.Env, "GIT_TRACE2_EVENT="+trace)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	s.wall = time.Since(start)
	if err != nil {
		return s, fmt.Errorf("%v\n%s", err, stderr.String())
	}
	s.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	s.rssKB = maxRSSKB(cmd.ProcessState)
	if rssFile != "" {
		b, _ := os.ReadFile(rssFile)
		s.rssKB, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	}
	s.writeouts, s.flushes = counters(trace)
	s.work = parseWork(stderr.String())
	return s, nil
}

// counters reads git's trace2 fsync counters (both the counter events of
// newer git and ours, and the data events of git 2.36–2.41).
func counters(path string) (writeouts, flushes int64) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev struct {
			Category, Name, Key string
			Count               int64
			Value               any
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Category != "fsync" {
			continue
		}
		n := ev.Count
		if s, ok := ev.Value.(string); ok {
			n, _ = strconv.ParseInt(s, 10, 64)
		}
		switch {
		case ev.Name == "writeout-only" || ev.Key == "fsync/writeout-only":
			writeouts += n
		case ev.Name == "hardware-flush" || ev.Key == "fsync/hardware-flush":
			flushes += n
		}
	}
	return writeouts, flushes
}

// measureRSS runs cmd under /usr/bin/time, which writes the command's
// peak RSS (KiB) to the returned file. The rusage this program gets for
// its own child is useless: Go starts children with vfork, and the peak
// of the parent's memory carries over the exec into ru_maxrss. Without
// /usr/bin/time it returns "" and the figure is that inflated one.
func measureRSS(cmd *exec.Cmd, dir string) string {
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		return ""
	}
	out := filepath.Join(dir, "rss.txt")
	os.Remove(out)
	cmd.Args = append([]string{"/usr/bin/time", "-f", "%M", "-o", out}, cmd.Args...)
	cmd.Path = "/usr/bin/time"
	return out
}
