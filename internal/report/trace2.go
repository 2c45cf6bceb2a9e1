package report

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/repo"
)

// processStart is when the process started, for trace2's t_abs and its
// session id.
var processStart = time.Now()

// WriteTrace2 writes git's trace2 fsync counter events to the target
// GIT_TRACE2_EVENT names (see Trace2.Counters) in a trace of its own.
func WriteTrace2(getenv func(string) string, stderr io.Writer, st batch.Stats) {
	t := OpenTrace2(getenv, stderr)
	t.Counters(st)
	t.Close()
}

// Counters writes git's trace2 fsync counter events, as git does: git
// 2.39's "data" events (key "fsync/<name>", the count as a string) up to
// git 2.41, "counter" events from 2.42 on, in the form of the git on PATH;
// only counters that are not zero. The lines are git's own: its keys in
// its order, and a session id nested under the parent git's
// (GIT_TRACE2_PARENT_SID), so that what reads git's events (t5351's
// check_fsync_events, a trace collector) reads ours.
func (t *Trace2) Counters(st batch.Stats) {
	if t == nil || st.WriteoutOnly == 0 && st.HardwareFlush == 0 {
		return // nothing to write: no need to ask git its version
	}
	counters := counterEvents(gitVersion())
	for _, c := range []struct {
		name  string
		count int64
	}{{"writeout-only", st.WriteoutOnly}, {"hardware-flush", st.HardwareFlush}} {
		if c.count == 0 {
			continue
		}
		if counters {
			t.write("counter", fmt.Sprintf(`,"category":"fsync","name":%s,"count":%d}`, quote(c.name), c.count))
		} else {
			t.Data("fsync", "fsync/"+c.name, c.count)
		}
	}
}

// Trace2 is this process's trace2 event stream, where GIT_TRACE2_EVENT
// says, opened at its first event: regions (fetch-pack's negotiation and
// its rounds), data and counters in the form and nesting git writes them,
// events nested deeper than GIT_TRACE2_EVENT_NESTING (2) left out as git
// leaves them out. A nil Trace2 writes nothing; its methods may be called
// from any goroutine.
type Trace2 struct {
	mu      sync.Mutex
	tr      trace2
	target  string
	stderr  io.Writer
	w       io.Writer
	done    func()
	opened  bool
	nesting int      // GIT_TRACE2_EVENT_NESTING
	regions []region // the open regions, innermost last
}

// region is an open region: when it began, what it is.
type region struct {
	start           time.Time
	category, label string
}

// OpenTrace2 returns the trace GIT_TRACE2_EVENT asks for, nil for none.
// The target is read as git reads it: empty, 0 or false for none; 1 or
// true for stderr; a digit for that file descriptor; an absolute path of a
// file to append to, or of a directory to create a file in named after
// the session; anything else is warned about (at the first event) and
// ignored.
func OpenTrace2(getenv func(string) string, stderr io.Writer) *Trace2 {
	target := getenv("GIT_TRACE2_EVENT")
	if traceOff(target) {
		return nil
	}
	t := &Trace2{tr: trace2{sid: sessionID(getenv("GIT_TRACE2_PARENT_SID"))}, target: target, stderr: stderr, nesting: 2}
	t.tr.brief, _ = repo.ParseBool(getenv("GIT_TRACE2_EVENT_BRIEF"))
	if n, err := strconv.Atoi(getenv("GIT_TRACE2_EVENT_NESTING")); err == nil && n > 0 {
		t.nesting = n
	}
	return t
}

// Enter opens a region, as trace2_region_enter_printf: msg may be empty.
func (t *Trace2) Enter(category, label, msg string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if depth := len(t.regions) + 1; depth <= t.nesting {
		t.writeLocked("region_enter", fmt.Sprintf(`,"repo":0,"nesting":%d,"category":%s,"label":%s%s}`, depth, quote(category), quote(label), msgKey(msg)))
	}
	t.regions = append(t.regions, region{time.Now(), category, label})
}

// Leave closes the innermost region Enter opened; msg may be empty.
func (t *Trace2) Leave(msg string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(t.regions) - 1
	if n < 0 {
		return
	}
	r := t.regions[n]
	t.regions = t.regions[:n]
	if depth := n + 1; depth <= t.nesting {
		t.writeLocked("region_leave", fmt.Sprintf(`,"repo":0,"t_rel":%.6f,"nesting":%d,"category":%s,"label":%s%s}`,
			time.Since(r.start).Seconds(), depth, quote(r.category), quote(r.label), msgKey(msg)))
	}
}

// Data writes a number as trace2_data_intmax writes it: the value a string.
func (t *Trace2) Data(category, key string, value int64) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	depth := len(t.regions) + 1
	if depth > t.nesting {
		return
	}
	since := processStart
	if len(t.regions) > 0 {
		since = t.regions[len(t.regions)-1].start
	}
	t.writeLocked("data", fmt.Sprintf(`,"repo":0,"t_abs":%.6f,"t_rel":%.6f,"nesting":%d,"category":%s,"key":%s,"value":%s}`,
		time.Since(processStart).Seconds(), time.Since(since).Seconds(), depth, quote(category), quote(key), quote(strconv.FormatInt(value, 10))))
}

// msgKey is a region's "msg" key, none where msg is empty.
func msgKey(msg string) string {
	if msg == "" {
		return ""
	}
	return `,"msg":` + quote(msg)
}

// write writes one event: its name, then the rest of its keys (rest ends
// with the closing brace).
func (t *Trace2) write(name, rest string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.writeLocked(name, rest)
}

func (t *Trace2) writeLocked(name, rest string) {
	if !t.opened {
		t.opened = true
		t.w, t.done = t.tr.open(t.target, t.stderr)
	}
	if t.w == nil {
		return
	}
	// One write per line, as git writes them (O_APPEND: whole lines
	// between other processes' lines).
	io.WriteString(t.w, t.tr.event(name, 3)+rest+"\n")
}

// Close closes the file the trace opened.
func (t *Trace2) Close() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done != nil {
		t.done()
	}
	t.w, t.done = nil, nil
}

// trace2 is one process's session as git's trace2 event target writes it.
type trace2 struct {
	sid   string
	brief bool // GIT_TRACE2_EVENT_BRIEF: no time, file or line
}

// open returns where the events go for target, and what to call when
// done; nil when nowhere.
func (tr trace2) open(target string, stderr io.Writer) (io.Writer, func()) {
	w, on := TraceTarget(target, "trace2", stderr)
	switch {
	case !on:
		return nil, nil
	case w != nil:
		return w, func() {}
	case filepath.IsAbs(target):
		flags, name := os.O_WRONLY|os.O_APPEND|os.O_CREATE, target
		if fi, err := os.Stat(target); err == nil && fi.IsDir() {
			// A file per session, named after its last component.
			flags, name = os.O_WRONLY|os.O_CREATE|os.O_EXCL, filepath.Join(target, tr.sid[strings.LastIndexByte(tr.sid, '/')+1:])
		}
		for attempt := 0; attempt < 10; attempt++ {
			n := name
			if attempt > 0 {
				n = fmt.Sprintf("%s.%d", name, attempt)
			}
			f, err := os.OpenFile(n, flags, 0o666)
			if err == nil {
				return f, func() { f.Close() }
			}
			if flags&os.O_EXCL == 0 {
				break
			}
		}
		return nil, nil
	}
	fmt.Fprintf(stderr, "warning: trace2: unknown value for 'GIT_TRACE2_EVENT': '%s'\n", target)
	return nil, nil
}

// event is the start of an event line: the keys git's event_fmt_prepare
// writes, in its order, without the closing brace.
func (tr trace2) event(name string, skip int) string {
	s := fmt.Sprintf(`{"event":%s,"sid":%s,"thread":"main"`, quote(name), quote(tr.sid))
	if tr.brief {
		return s
	}
	_, file, line, _ := runtime.Caller(skip)
	return s + fmt.Sprintf(`,"time":%s,"file":%s,"line":%d`,
		quote(time.Now().UTC().Format("2006-01-02T15:04:05.000000Z")), quote(filepath.Base(file)), line)
}

// sessionID is git's trace2 session id for this process: the parent's
// (GIT_TRACE2_PARENT_SID) and a slash before its own component,
// "<yyyymmdd>T<hhmmss>.<µs>Z-H<8 hex of the host name's SHA-1>-P<pid, 8 hex>".
func sessionID(parent string) string {
	host := "Localhost"
	if h, err := os.Hostname(); err == nil && h != "" {
		sum := sha1.Sum([]byte(h))
		host = "H" + hex.EncodeToString(sum[:4])
	}
	own := fmt.Sprintf("%s-%s-P%08x", processStart.UTC().Format("20060102T150405.000000Z"), host, uint32(os.Getpid()))
	if parent != "" {
		return parent + "/" + own
	}
	return own
}

// quote is a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// gitVersion is what "git version" prints, or "" without git.
func gitVersion() string {
	out, err := exec.Command("git", "version").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// counterEvents reports whether the git of version v ("git version 2.39.5")
// writes its fsync counters as trace2 counter events (2.42 and later); an
// unknown version gets the newer form.
func counterEvents(v string) bool {
	rest, ok := strings.CutPrefix(v, "git version ")
	if !ok {
		return true
	}
	f := strings.SplitN(rest, ".", 3)
	if len(f) < 2 {
		return true
	}
	major, err1 := strconv.Atoi(f[0])
	minor, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		return true
	}
	return major > 2 || major == 2 && minor >= 42
}
