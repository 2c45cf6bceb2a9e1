package remote

import (
	"reflect"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/transport"
)

func TestSSHArgs(t *testing.T) {
	ep := &transport.Endpoint{Protocol: "ssh", User: "git", Host: "h", Port: 2222, Path: "/o/it's.git"}
	for _, tc := range []struct {
		variant string
		want    []string
	}{
		{"ssh", []string{"-p", "2222", "git@h", `git-upload-pack '/o/it'\''s.git'`}},
		{"plink", []string{"-P", "2222", "git@h", `git-upload-pack '/o/it'\''s.git'`}},
		{"tortoiseplink", []string{"-batch", "-P", "2222", "git@h", `git-upload-pack '/o/it'\''s.git'`}},
	} {
		got, err := sshArgs(tc.variant, ep, "git-upload-pack")
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %q, %v; want %q", tc.variant, got, err, tc.want)
		}
	}
	if _, err := sshArgs("simple", ep, "git-upload-pack"); err == nil {
		t.Error("simple ssh took a port")
	}
	scp := &transport.Endpoint{Protocol: "ssh", Host: "h", Port: 22, Path: "o/r.git"}
	if got, _ := sshArgs("simple", scp, "git-receive-pack"); !reflect.DeepEqual(got, []string{"h", "git-receive-pack 'o/r.git'"}) {
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
