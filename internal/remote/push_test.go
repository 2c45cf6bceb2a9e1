package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/git-durable/git-durable/internal/gittest"
)

// fakeReceive is a receive-pack that advertises refs, records what it is
// sent and reports the statuses it is told to.
type fakeReceive struct {
	refs     map[string]plumbing.Hash
	caps     []capability.Capability
	statuses map[string]string // ref → status; "ok" when absent
	got      *packp.ReferenceUpdateRequest
	pack     []byte
}

func (f *fakeReceive) NewUploadPackSession(*transport.Endpoint, transport.AuthMethod) (transport.UploadPackSession, error) {
	return nil, errors.New("no upload-pack here")
}

func (f *fakeReceive) NewReceivePackSession(*transport.Endpoint, transport.AuthMethod) (transport.ReceivePackSession, error) {
	return fakeSession{f}, nil
}

type fakeSession struct{ f *fakeReceive }

func (s fakeSession) AdvertisedReferences() (*packp.AdvRefs, error) {
	return s.AdvertisedReferencesContext(context.Background())
}

func (s fakeSession) AdvertisedReferencesContext(context.Context) (*packp.AdvRefs, error) {
	ar := packp.NewAdvRefs()
	for _, c := range s.f.caps {
		ar.Capabilities.Set(c)
	}
	for k, v := range s.f.refs {
		ar.References[k] = v
	}
	return ar, nil
}

func (s fakeSession) ReceivePack(_ context.Context, req *packp.ReferenceUpdateRequest) (*packp.ReportStatus, error) {
	s.f.got = req
	if req.Packfile != nil {
		s.f.pack, _ = io.ReadAll(req.Packfile)
		req.Packfile.Close()
	}
	rs := packp.NewReportStatus()
	rs.UnpackStatus = "ok"
	for _, c := range req.Commands {
		st := s.f.statuses[c.Name.String()]
		if st == "" {
			st = "ok"
		}
		rs.CommandStatuses = append(rs.CommandStatuses, &packp.CommandStatus{ReferenceName: c.Name, Status: st})
	}
	return rs, rs.Error()
}

func (s fakeSession) Close() error { return nil }

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
	h := plumbing.NewHash
	f := &fakeReceive{
		caps: []capability.Capability{capability.ReportStatus, capability.DeleteRefs, capability.OFSDelta},
		refs: map[string]plumbing.Hash{
			"refs/heads/main": h(ids["parent"]), "refs/heads/diverged": h(ids["side"]), "refs/heads/forced": h(ids["side"]),
			"refs/heads/unknown": h(strings.Repeat("1", 40)), "refs/tags/v10": h(ids["v10"]),
			"refs/heads/gone": h(ids["parent"]), "refs/heads/leased": h(ids["parent"]),
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
	f.caps = append(f.caps, capability.Atomic)
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
