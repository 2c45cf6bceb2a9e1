package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"time"
)

// daemon is a git daemon serving the upstreams under base on 127.0.0.1.
type daemon struct {
	base string
	port int
	cmd  *exec.Cmd
	log  *daemonLog // its --verbose log, when started with one
	// forget takes back the kill registered with onSignal.
	forget func()
}

// startLoggedDaemon starts git daemon on a free port of 127.0.0.1; with
// log, it runs --verbose and writes what it logs (the protocol every
// request asks for) to that file. env is added to its environment (and
// that of the upload-packs it starts).
func startLoggedDaemon(base, log string, env ...string) (*daemon, error) {
	for attempt := 0; attempt < 5; attempt++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		cmd := exec.Command("git", "daemon", "--export-all", "--base-path="+base, "--listen=127.0.0.1",
			"--port="+strconv.Itoa(port), "--reuseaddr", base)
		var dl *daemonLog
		if log != "" {
			f, err := os.OpenFile(log, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_APPEND, 0o644)
			if err != nil {
				return nil, err
			}
			cmd.Args = append(cmd.Args[:2], append([]string{"--verbose"}, cmd.Args[2:]...)...)
			cmd.Stderr = f
			dl = &daemonLog{path: log}
			defer f.Close() // the daemon has its own copy
		}
		if len(env) > 0 {
			cmd.Env = append(os.Environ(), env...)
		}
		inGroup(cmd) // git daemon runs git-daemon, which forks per connection
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		p := cmd.Process // by its process id, also while stop waits
		forget := onSignal(func() { killGroup(p) })
		d := &daemon{base, port, cmd, dl, forget}
		for i := 0; i < 100; i++ {
			if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
				c.Close()
				return d, nil
			}
			time.Sleep(50 * time.Millisecond)
		}
		d.stop()
	}
	return nil, fmt.Errorf("git daemon did not start")
}

// stop kills the daemon. It stays in this program's process group, so
// that an interrupt ends it too; the upload-packs it forked end with their
// connections.
func (d *daemon) stop() {
	killGroup(d.cmd.Process)
	d.cmd.Wait()
	d.forget()
}

// url is the git:// URL of the upstream name.
func (d *daemon) url(name string) string {
	return fmt.Sprintf("git://127.0.0.1:%d/%s", d.port, name)
}

// serve starts git daemon on the upstreams in base (logged to log, unless
// it is "") and makes the helper shim beside them; the caller stops the
// daemon.
func serve(base, log, helper string) (*daemon, string, error) {
	d, err := startLoggedDaemon(base, log)
	if err != nil {
		return nil, "", err
	}
	shim, err := helperShim(base, helper)
	if err != nil {
		d.stop()
		return nil, "", err
	}
	return d, shim, nil
}
