package stream

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/git-durable/git-durable/internal/upstream/transport"
)

func TestSSHArgs(t *testing.T) {
	ep := &transport.Address{Scheme: transport.SSH, User: "git", Host: "h", Port: 2222, Path: "/o/it's.git"}
	for _, tc := range []struct {
		variant string
		want    []string
	}{
		{"ssh", []string{"-p", "2222", "git@h", `git-upload-pack '/o/it'\''s.git'`}},
		{"plink", []string{"-P", "2222", "git@h", `git-upload-pack '/o/it'\''s.git'`}},
		{"tortoiseplink", []string{"-batch", "-P", "2222", "git@h", `git-upload-pack '/o/it'\''s.git'`}},
	} {
		got, err := sshArgs(tc.variant, ep, "git-upload-pack", 0)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %q, %v; want %q", tc.variant, got, err, tc.want)
		}
	}
	if _, err := sshArgs("simple", ep, "git-upload-pack", 0); err == nil {
		t.Error("simple ssh took a port")
	}
	scp := &transport.Address{Scheme: transport.SSH, Host: "h", Port: 22, Path: "o/r.git"}
	if got, _ := sshArgs("simple", scp, "git-receive-pack", 0); !reflect.DeepEqual(got, []string{"h", "git-receive-pack 'o/r.git'"}) {
		t.Errorf("scp-like: %q", got)
	}
}

func TestSSHVariant(t *testing.T) {
	for _, tc := range []struct {
		prog  string
		shell bool
		want  string
	}{
		{"ssh", false, "ssh"},
		{"/usr/bin/plink.exe", false, "plink"},
		{"TortoisePlink -v", true, "tortoiseplink"},
		{"ssh -i key -o X=y", true, "ssh"},
		{"/opt/my-wrapper", false, "ssh"},
	} {
		if got := sshVariant(tc.prog, tc.shell); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.prog, got, tc.want)
		}
	}
}

// TestSSHCommandLine: the ssh command runs as git runs it — directly when
// it needs no shell, else through sh -c with "$@" — and a command line of
// one simple command is exec'd by the shell, so that the helper's child is
// ssh itself.
func TestSSHCommandLine(t *testing.T) {
	ep := &transport.Address{Scheme: transport.SSH, Host: "h", Path: "/r.git"}
	remote := []string{"h", "git-upload-pack '/r.git'"}
	for _, tc := range []struct {
		prog string
		want []string
	}{
		{"/opt/bin/my-ssh", append([]string{"/opt/bin/my-ssh"}, remote...)},
		{"ssh -i ~/key -o X=y", append([]string{"sh", "-c", `exec ssh -i ~/key -o X=y "$@"`, "ssh -i ~/key -o X=y"}, remote...)},
		{"ssh -i '/a b/key'", append([]string{"sh", "-c", `exec ssh -i '/a b/key' "$@"`, "ssh -i '/a b/key'"}, remote...)},
		{"ssh -v 2>/dev/null", append([]string{"sh", "-c", `ssh -v 2>/dev/null "$@"`, "ssh -v 2>/dev/null"}, remote...)},
		{"log-it && ssh", append([]string{"sh", "-c", `log-it && ssh "$@"`, "log-it && ssh"}, remote...)},
		{"SSH_AUTH_SOCK=/s ssh", append([]string{"sh", "-c", `SSH_AUTH_SOCK=/s ssh "$@"`, "SSH_AUTH_SOCK=/s ssh"}, remote...)},
		{"$HOME/bin/ssh -v", append([]string{"sh", "-c", `$HOME/bin/ssh -v "$@"`, "$HOME/bin/ssh -v"}, remote...)},
	} {
		tr := SSH(nil, func(k string) string {
			if k == "GIT_SSH_COMMAND" {
				return tc.prog
			}
			return ""
		}, ep).(*commandTransport)
		cmd, err := tr.command(context.Background(), "git-upload-pack", 0)
		if err != nil {
			t.Fatal(err)
		}
		got := append([]string{filepath.Base(cmd.Path)}, cmd.Args[1:]...)
		want := append([]string{filepath.Base(tc.want[0])}, tc.want[1:]...)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: runs %q, want %q", tc.prog, got, want)
		}
	}
}

// TestProtocolEnv: the variable that asks a local upload-pack for a
// protocol version is git's.
func TestProtocolEnv(t *testing.T) {
	if got := protocolEnv(2); got != "GIT_PROTOCOL=version=2" {
		t.Error(got)
	}
}
