package integration

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
)

// maxRSS bounds the peak resident memory of git-unpack-durable on a pack
// whose size fields lie: what it holds must follow what it received.
const maxRSS = 64 << 20

// liarPacks are packs of a few hundred bytes whose size fields claim
// gigabytes or more, each with the exit code the unpacker must give.
func liarPacks() []hostile {
	var out []hostile
	add := func(name string, b *packtest.Builder, args ...string) {
		out = append(out, hostile{name: name, pack: b.Pack(), args: args})
	}
	six := packtest.Deflate([]byte("abcdef"))
	b := &packtest.Builder{}
	b.Raw(object.Blob, 1<<30, nil, six)
	add("blob claims 1 GiB", b)
	b = &packtest.Builder{}
	b.Raw(object.Blob, 600<<20, nil, six) // above core.bigFileThreshold: streamed
	add("blob claims 600 MiB", b)
	b = &packtest.Builder{}
	b.Raw(object.Blob, 1<<62, nil, six)
	add("blob claims 4 EiB", b)
	b = &packtest.Builder{}
	for i := 0; i < 64; i++ {
		b.Raw(object.Blob, 1<<30+int64(i), nil, six)
	}
	add("64 blobs claim 1 GiB each, -r", b, "-r")
	b = &packtest.Builder{}
	for i := 0; i < 64; i++ {
		b.Raw(object.Commit, 1<<30, nil, six)
	}
	add("64 commits claim 1 GiB each, --strict -r", b, "--strict", "-r")
	b = &packtest.Builder{}
	b.Object(object.Blob, []byte("base"))
	b.Raw(object.OfsDelta, 1<<40, packtest.OfsDistance(b.Offset(0)), six)
	add("OFS delta claims 1 TiB", b)
	b = &packtest.Builder{}
	base := []byte("a delta base of some length\n")
	b.Object(object.Blob, base)
	for i := 0; i < 64; i++ {
		b.OfsDelta(0, (&packtest.Delta{}).Copy(0, 4).Bytes(uint64(len(base)), 1<<40+uint64(i)))
	}
	add("64 delta results claim 1 TiB each, -r", b, "-r")
	b = &packtest.Builder{}
	b.RefDelta(blobID("nowhere"), (&packtest.Delta{}).Copy(0, 4).Bytes(1<<30, 1<<30))
	add("REF delta on a missing base claims 1 GiB", b)

	// Delta bombs: "copy 64 KiB" is one byte, so a few bytes of delta can
	// describe gigabytes from a small base. git believes them and
	// allocates; ours refuses past 4× base and delta (or 64 MiB).
	big := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB
	for _, n := range []int{16 << 10, 1 << 20} {          // 1 GiB and 64 GiB results
		d := &packtest.Delta{}
		for i := 0; i < n; i++ {
			d.Copy(0, 0x10000)
		}
		b = &packtest.Builder{}
		b.Object(object.Blob, big)
		b.OfsDelta(0, d.Bytes(uint64(len(big)), uint64(n)<<16))
		add(fmt.Sprintf("delta bomb: %d bytes describe %d GiB", n, n>>14), b)
	}

	count := (&packtest.Builder{}).Pack()
	binary.BigEndian.PutUint32(count[8:], 0xffffffff)
	out = append(out, hostile{name: "header claims 4 billion entries", pack: count})
	return out
}

// TestHostileSizesBoundMemory runs git-unpack-durable on each liar pack,
// measures its peak RSS (ru_maxrss, which also covers the git it runs for
// configuration), and requires a clean failure within maxRSS, whatever the
// claims.
func TestHostileSizesBoundMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ru_maxrss is in KiB on Linux only")
	}
	env := env(t)
	tool := rusageTool(t, t.TempDir())
	good := &packtest.Builder{}
	good.Object(object.Blob, []byte("just a blob\n"))
	base := peakRSS(t, tool, env, gittest.Init(t, env, true, ""), good.Pack())
	t.Logf("a valid one-object pack: peak RSS %d KiB", base.rss>>10)
	for _, h := range liarPacks() {
		repo := gittest.Init(t, env, true, "")
		r := peakRSS(t, tool, env, repo, h.pack, h.args...)
		t.Logf("%s: exit %d, peak RSS %d KiB: %s", h.name, r.code, r.rss>>10, lastLine(r.stderr))
		if r.code == 0 || r.code > 128 || strings.Contains(r.stderr, "goroutine ") {
			t.Errorf("%s: exit %d\n%s", h.name, r.code, r.stderr)
		}
		if r.rss > maxRSS {
			t.Errorf("%s: peak RSS %d MiB, bound %d MiB", h.name, r.rss>>20, maxRSS>>20)
		}
		gittest.Fsck(t, env, repo)
	}
}

type rssRun struct {
	code   int
	rss    int64 // bytes
	stderr string
}

// rusageSrc is a tiny program that runs a command and writes the peak RSS
// of that command to a file. The measurement has to come from a small
// parent: os/exec starts a child with vfork in the parent's address space,
// and Linux carries that space's high-water mark into the child's
// ru_maxrss across the exec — measured from this test binary, every run
// would show the test binary's own peak.
const rusageSrc = `package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	c := exec.Command(os.Args[2], os.Args[3:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	c.Run()
	if c.ProcessState == nil {
		os.Exit(255)
	}
	ru := c.ProcessState.SysUsage().(*syscall.Rusage)
	os.WriteFile(os.Args[1], []byte(fmt.Sprint(ru.Maxrss)), 0o644)
	os.Exit(c.ProcessState.ExitCode())
}
`

// rusageTool builds the rusage program into dir.
func rusageTool(t *testing.T, dir string) string {
	t.Helper()
	src := filepath.Join(dir, "rusage.go")
	if err := os.WriteFile(src, []byte(rusageSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "rusage")
	c := exec.Command("go", "build", "-o", bin, src)
	c.Dir = dir
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("building the rusage tool: %v\n%s", err, out)
	}
	return bin
}

// peakRSS runs the built git-unpack-durable in repo with pack on stdin,
// through the rusage tool.
func peakRSS(t *testing.T, tool string, env []string, repo string, pack []byte, args ...string) rssRun {
	t.Helper()
	out := filepath.Join(t.TempDir(), "maxrss")
	c := exec.Command(tool, append([]string{out, filepath.Join(binDir, "git-unpack-durable")}, args...)...)
	c.Dir, c.Env, c.Stdin = repo, env, bytes.NewReader(pack)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	err := c.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return rssRun{code: c.ProcessState.ExitCode(), rss: readRSS(t, out, stderr.String()), stderr: stderr.String()}
}

// readRSS reads the peak RSS in bytes that the rusage tool wrote to path
// (in KiB); stderr is the measured command's, shown if there is none.
func readRSS(t *testing.T, path, stderr string) int64 {
	t.Helper()
	kib, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no measurement: %v\n%s", err, stderr)
	}
	n, err := strconv.ParseInt(string(kib), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n << 10
}
