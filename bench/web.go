package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"path/filepath"
)

// startWeb serves the repositories under base with git http-backend
// (smart HTTP) on 127.0.0.1, in this process, and returns the base URL and
// what stops it.
func startWeb(base string, env ...string) (string, func(), error) {
	execPath, err := gitOut("", "--exec-path")
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	h := &cgi.Handler{
		Path:       filepath.Join(execPath, "git-http-backend"),
		Env:        append([]string{"GIT_PROJECT_ROOT=" + base, "GIT_HTTP_EXPORT_ALL=1"}, env...),
		InheritEnv: []string{"PATH", "HOME", "GIT_CONFIG_NOSYSTEM"},
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// upstreamURL serves the upstream up.git under dir as via says — "file"
// (file://, no server), "git" (git daemon) or "http" (git http-backend) —
// and returns its URL and what stops the server; env is added to the
// server's environment.
func upstreamURL(dir, via string, env ...string) (string, func(), error) {
	switch via {
	case "file":
		return "file://" + filepath.Join(dir, "up.git"), func() {}, nil
	case "git":
		d, err := startLoggedDaemon(dir, "", env...)
		if err != nil {
			return "", nil, err
		}
		return d.url("up.git"), d.stop, nil
	case "http":
		base, stop, err := startWeb(dir, env...)
		return base + "/up.git", stop, err
	}
	return "", nil, fmt.Errorf("-mirror-via %q: want file, git or http", via)
}
