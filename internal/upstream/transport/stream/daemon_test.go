package stream

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"testing"

	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// TestDaemonRequest: the request line the git:// transport sends is the
// one git 2.39 sends for the same URL (recorded from git with a listener):
// the path decoded as git decodes it, "%00" left alone, the host and port
// as the URL spells them; a newline is refused with git's words.
func TestDaemonRequest(t *testing.T) {
	for _, network := range []string{"127.0.0.1", "[::1]"} {
		ln, err := net.Listen("tcp", network+":0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		hostPort := fmt.Sprintf("%s:%d", network, ln.Addr().(*net.TCPAddr).Port)
		for _, tc := range []struct{ path, want string }{
			{"/a%00b", "/a%00b"},
			{"/a%20b%2fc%25d", "/a b/c%d"},
			{"/~u/r", "~u/r"},
			{"/r?x#y", "/r?x#y"},
		} {
			for _, user := range []string{"", "u:pw@"} {
				addr := "git://" + user + hostPort + tc.path
				got := daemonRequest(t, ln, addr, 0)
				// git sends a user:password@ as part of the host (and then
				// fails to look that name up); the helper leaves it out.
				if want := "git-upload-pack " + tc.want + "\x00host=" + hostPort + "\x00"; got != want {
					t.Errorf("%s: sent %q, want %q", addr, got, want)
				}
			}
		}
	}
	for _, addr := range []string{"git://127.0.0.1:1/a%0ab", "git://127.0.0.1:1/a%0Ab", "git://h"} {
		a, err := transport.ParseAddress(addr)
		if err == nil {
			err = CheckDaemon(a, addr)
		}
		want := "newline is forbidden in git:// hosts and repo paths"
		if addr == "git://h" {
			want = "no path specified; see 'git help pull' for valid url syntax"
		}
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", addr, err, want)
		}
	}
}

// daemonRequest connects the git:// transport for addr to ln, asking for
// protocol version, and returns the request it sent.
func daemonRequest(t *testing.T, ln net.Listener, addr string, version int) string {
	t.Helper()
	ep, err := transport.ParseAddress(addr)
	if err == nil {
		err = CheckDaemon(ep, addr)
	}
	if err != nil {
		t.Fatalf("%s: %v", addr, err)
	}
	got := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- err.Error()
			return
		}
		defer c.Close()
		var buf []byte
		pkt, err := transport.ReadPkt(bufio.NewReader(c), &buf)
		if err != nil {
			got <- err.Error()
			return
		}
		got <- string(pkt)
	}()
	c, err := Daemon(ep).Connect(context.Background(), "git-upload-pack", version)
	if err != nil {
		t.Fatalf("%s: %v", addr, err)
	}
	defer c.Close()
	return <-got
}

// TestDaemonRequestV2: protocol v2 (and v1) is asked for as git 2.39 asks
// for it, "version=<n>" after a second NUL, which git daemon hands
// upload-pack as GIT_PROTOCOL and an older daemon ignores.
func TestDaemonRequestV2(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	hostPort := ln.Addr().String()
	for version, want := range map[int]string{
		0: "git-upload-pack /r\x00host=" + hostPort + "\x00",
		1: "git-upload-pack /r\x00host=" + hostPort + "\x00\x00version=1\x00",
		2: "git-upload-pack /r\x00host=" + hostPort + "\x00\x00version=2\x00",
	} {
		if got := daemonRequest(t, ln, "git://"+hostPort+"/r", version); got != want {
			t.Errorf("version %d: sent %q, want %q", version, got, want)
		}
	}
}
