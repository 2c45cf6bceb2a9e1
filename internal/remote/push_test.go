package remote

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/go-git/go-git/v6/plumbing/format/pktline"
	"github.com/go-git/go-git/v6/plumbing/protocol/packp"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/upstream/transport/stream"
)

// fakeReceive is a receive-pack that advertises refs, records what it is
// sent and reports the statuses it is told to.
type fakeReceive struct {
	refs     map[string]string
	caps     []string
	statuses map[string]string // ref → status; "ok" when absent
	got      *packp.UpdateRequests
	pack     []byte
}

// Connect serves one push over a pair of pipes.
func (f *fakeReceive) Connect(_ context.Context, service string, _ int) (stream.Conn, error) {
	if service != "git-receive-pack" {
		return nil, errors.New("no upload-pack here")
	}
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	go func() {
		f.serve(bufio.NewReader(toServer), fromServer)
		fromServer.Close()
		io.Copy(io.Discard, toServer)
	}()
	return &pipeConn{r: toClient, w: fromClient}, nil
}

func (f *fakeReceive) serve(in *bufio.Reader, out io.Writer) {
	first := true
	for name, id := range f.refs {
		line := id + " " + name
		if first {
			line += "\x00" + strings.Join(f.caps, " ")
			first = false
		}
		pktline.Writeln(out, line)
	}
	pktline.WriteFlush(out)
	if p, _ := in.Peek(4); string(p) == "0000" {
		return // no command: nothing to push
	}
	req := &packp.UpdateRequests{}
	if err := req.Decode(in); err != nil {
		return
	}
	f.got = req
	f.pack, _ = io.ReadAll(in)
	pktline.Writeln(out, "unpack ok")
	for _, cmd := range req.Commands {
		if st := f.statuses[cmd.Name.String()]; st != "" {
			pktline.Writeln(out, "ng "+cmd.Name.String()+" "+st)
		} else {
			pktline.Writeln(out, "ok "+cmd.Name.String())
		}
	}
	pktline.WriteFlush(out)
}

// pipeConn is the helper's end of the pipes to a fake server.
type pipeConn struct {
	r *io.PipeReader
	w *io.PipeWriter
}

func (p *pipeConn) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p *pipeConn) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p *pipeConn) CloseWrite() error           { return p.w.Close() }
func (p *pipeConn) Close() error {
	p.w.Close()
	io.Copy(io.Discard, p.r)
	return nil
}

// pushFixture is a local repository with a history and a fake upstream
// whose refs are: main one commit behind, diverged (a commit of another
// history), unknown (an id not here), v10 (a tag), gone, leased.
func pushFixture(t *testing.T) (*fakeReceive, map[string]string) {
	t.Helper()
	local := t.TempDir()
	env := sealed(t, local)
	gittest.Git(t, env, local, "init", "-q", "--bare", local)
	gittest.History(t, env, local, 10, 12)
	id := func(rev string) string { return strings.TrimSpace(gittest.Git(t, env, local, "rev-parse", rev)) }
	other := gittest.GitIn(t, env, local, nil, "commit-tree", "-m", "another history", id("main^{tree}"))
	ids := map[string]string{"main": id("main"), "parent": id("main~1"), "side": strings.TrimSpace(string(other)), "v10": id("v10")}
	f := &fakeReceive{
		caps: []string{"report-status", "delete-refs", "ofs-delta"},
		refs: map[string]string{
			"refs/heads/main": ids["parent"], "refs/heads/diverged": ids["side"], "refs/heads/forced": ids["side"],
			"refs/heads/unknown": strings.Repeat("1", 40), "refs/tags/v10": ids["v10"],
			"refs/heads/gone": ids["parent"], "refs/heads/leased": ids["parent"],
		},
		statuses: map[string]string{"refs/heads/new": "deny updating a hidden ref"},
	}
	return f, ids
}

// TestPush checks git send-pack's decisions and words, and what reaches
// receive-pack.
func TestPush(t *testing.T) {
	f, ids := pushFixture(t)
	in := "list for-push\noption cas refs/heads/leased:" + strings.Repeat("2", 40) + "\n" +
		"push refs/heads/main:refs/heads/main\npush refs/heads/main:refs/heads/diverged\n" +
		"push +refs/heads/main:refs/heads/forced\npush refs/heads/main:refs/heads/unknown\n" +
		"push refs/heads/main:refs/tags/v10\npush :refs/heads/gone\npush :refs/heads/never\n" +
		"push refs/heads/main:refs/heads/new\npush refs/heads/main:refs/heads/leased\n" +
		"push " + ids["parent"] + ":refs/heads/byid\n\n"
	s := dialogue(t, "/upstream.git", in, f)
	if s.code != 0 {
		t.Fatalf("exit %d: %s", s.code, s.err)
	}
	reply := s.out[strings.Index(s.out, "ok\n")+3:] // after the list and the cas option
	want := "ok refs/heads/main\nerror refs/heads/diverged non-fast forward\nok refs/heads/forced\n" +
		"error refs/heads/unknown fetch first\nerror refs/tags/v10 already exists\nok refs/heads/gone\n" +
		"error refs/heads/never remote ref does not exist\nerror refs/heads/new deny updating a hidden ref\n" +
		"error refs/heads/leased stale info\nok refs/heads/byid\n\n"
	if reply != want {
		t.Fatalf("replies:\n%s\nwant:\n%s", reply, want)
	}
	var sent []string
	for _, c := range f.got.Commands {
		sent = append(sent, fmt.Sprintf("%s %s %s", c.Name, c.Old.String()[:7], c.New.String()[:7]))
	}
	wantSent := []string{
		"refs/heads/main " + ids["parent"][:7] + " " + ids["main"][:7],
		"refs/heads/forced " + ids["side"][:7] + " " + ids["main"][:7],
		"refs/heads/gone " + ids["parent"][:7] + " 0000000",
		"refs/heads/new 0000000 " + ids["main"][:7],
		"refs/heads/byid 0000000 " + ids["parent"][:7],
	}
	if strings.Join(sent, "\n") != strings.Join(wantSent, "\n") {
		t.Errorf("sent:\n%s\nwant:\n%s", strings.Join(sent, "\n"), strings.Join(wantSent, "\n"))
	}
	if len(f.pack) < 32 || string(f.pack[:4]) != "PACK" {
		t.Errorf("pack: %d bytes", len(f.pack))
	}
}

// TestPushDryRunAndAtomic: a dry run sends nothing; an atomic push with a
// refusal fails every ref; atomic needs the upstream's support.
func TestPushDryRunAndAtomic(t *testing.T) {
	f, _ := pushFixture(t)
	s := dialogue(t, "/upstream.git", "list for-push\noption dry-run true\npush refs/heads/main:refs/heads/main\n\n", f)
	if s.code != 0 || !strings.HasSuffix(s.out, "ok\nok refs/heads/main\n\n") || f.got != nil {
		t.Fatalf("dry run: %+v, sent %v", s, f.got)
	}
	in := "list for-push\noption atomic true\npush refs/heads/main:refs/heads/main\npush refs/heads/main:refs/heads/diverged\n\n"
	s = dialogue(t, "/upstream.git", in, f)
	if s.code != 128 || !strings.Contains(s.err, "does not support --atomic") {
		t.Fatalf("atomic without support: %+v", s)
	}
	f.caps = append(f.caps, "atomic")
	s = dialogue(t, "/upstream.git", in, f)
	if s.code != 0 || !strings.HasSuffix(s.out, "error refs/heads/main atomic push failed\nerror refs/heads/diverged non-fast forward\n\n") || f.got != nil {
		t.Fatalf("atomic: %+v, sent %v", s, f.got)
	}
}

// TestRejection: a reason git would read as its own status is quoted
// (TestRemotePushReport shows what git makes of it).
func TestRejection(t *testing.T) {
	for in, want := range map[string]string{
		"up to date": `"up to date"`, "forced update": `"forced update"`, "no match": `"no match"`,
		"ok": "ok", "pre-receive hook declined": "pre-receive hook declined", "up to date!": "up to date!",
	} {
		if got := rejection(in); got != want {
			t.Errorf("rejection(%q) = %q, want %q", in, got, want)
		}
	}
}
