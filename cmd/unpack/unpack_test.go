package unpack

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/proc"
)

func TestUsage(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stdout bool
	}{
		{[]string{"-x"}, 129, false},
		{[]string{"-nq"}, 129, false}, // no bundling, as in git
		{[]string{"file.pack"}, 129, false},
		{[]string{"-h"}, 129, false}, // git unpack-objects -h: usage on stderr, 129
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		err := Run(context.Background(), tt.args, proc.Env{Stdout: &out, Stderr: &errb, Getenv: os.Getenv})
		code := cli.Exit(err, &out, &errb)
		where := errb.String()
		if tt.stdout {
			where = out.String()
		}
		if code != tt.code || !strings.HasPrefix(where, "usage: git unpack-durable") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tt.args, code, out.String(), errb.String())
		}
	}
	var out, errb bytes.Buffer
	err := Run(context.Background(), []string{"--pack_header=2,x"}, proc.Env{Stdout: &out, Stderr: &errb, Getenv: os.Getenv})
	if code := cli.Exit(err, &out, &errb); code != 128 || errb.String() != "fatal: bad --pack_header=2,x\n" {
		t.Errorf("bad --pack_header: exit %d, %q", code, errb.String())
	}
}

// TestProgressOnATerminal unpacks with stderr taken for a terminal and
// checks git's progress line; with -q there is none.
func TestProgressOnATerminal(t *testing.T) {
	gittest.Need(t)
	env := gittest.Env(t)
	src := gittest.Init(t, env, true, "")
	gittest.History(t, env, src, 10, 5)
	pack := gittest.GitIn(t, env, src, []byte{}, "pack-objects", "--all", "--stdout", "-q")
	n := strings.Count(gittest.Objects(t, env, src), "\n")
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_") || k == "HOME" {
			t.Setenv(k, v)
		}
	}
	for _, quiet := range []bool{false, true} {
		repo := gittest.Init(t, env, true, "")
		t.Setenv("GIT_DIR", repo)
		var args []string
		if quiet {
			args = []string{"-q"}
		}
		var out, errb bytes.Buffer
		err := Run(context.Background(), args, proc.Env{Stdin: bytes.NewReader(pack), Stdout: &out, Stderr: &errb, Getenv: os.Getenv, IsTerminal: true})
		if err != nil {
			t.Fatal(err)
		}
		final := "Unpacking objects: 100% (" + strconv.Itoa(n) + "/" + strconv.Itoa(n) + "), "
		if quiet && errb.Len() != 0 || !quiet && (!strings.Contains(errb.String(), final) || !strings.HasSuffix(errb.String(), ", done.\n")) {
			t.Errorf("quiet=%v: stderr %q", quiet, errb.String())
		}
	}
}
