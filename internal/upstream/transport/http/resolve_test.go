package http

import (
	"context"
	"errors"
	"net"
	"reflect"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/repo"
)

// TestResolveTable reads http.curloptResolve entries as curl 7.88's
// Curl_loadhostpairs does (the forms checked against git 2.39 by hand).
func TestResolveTable(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []string
		want    map[string]string // "host:port" -> addresses; nil: an error
	}{
		{"one", []string{"git.example:443:127.0.0.1"}, map[string]string{"git.example:443": "127.0.0.1"}},
		{"case", []string{"GIT.Example:443:127.0.0.1"}, map[string]string{"git.example:443": "127.0.0.1"}},
		{"several", []string{"h:1:127.0.0.2,[::1],,127.0.0.1"}, map[string]string{"h:1": "127.0.0.2 ::1 127.0.0.1"}},
		{"plus", []string{"+h:1:127.0.0.1"}, map[string]string{"h:1": "127.0.0.1"}},
		{"later-wins", []string{"h:1:127.0.0.2", "h:1:127.0.0.1"}, map[string]string{"h:1": "127.0.0.1"}},
		{"removed", []string{"h:1:127.0.0.2", "-h:1", "h:2:127.0.0.3"}, map[string]string{"h:2": "127.0.0.3"}},
		{"removed-then-added", []string{"h:1:127.0.0.2", "-H:1", "h:1:127.0.0.1"}, map[string]string{"h:1": "127.0.0.1"}},
		{"bad-removal-ignored", []string{"h:1:127.0.0.2", "-h", "-h:x"}, map[string]string{"h:1": "127.0.0.2"}},
		{"wildcard", []string{"*:1:127.0.0.1"}, map[string]string{"*:1": "127.0.0.1"}},
		{"port-leading-zero", []string{"h:0443:127.0.0.1"}, map[string]string{"h:443": "127.0.0.1"}},
		{"no-port", []string{"h:127.0.0.1"}, nil},
		{"no-address", []string{"h:1:"}, nil},
		{"name-address", []string{"h:1:localhost"}, nil},
		{"bad-after-good", []string{"h:1:127.0.0.1", "garbage"}, nil},
		{"port-too-big", []string{"h:65536:127.0.0.1"}, nil},
		{"open-bracket", []string{"h:1:[::1"}, nil},
	} {
		table, err := newResolveTable(tc.entries)
		if tc.want == nil {
			var te *transferError
			if !errors.As(err, &te) || !strings.HasPrefix(te.msg, "Couldn't parse CURLOPT_RESOLVE entry '") || !te.initial {
				t.Errorf("%s: %v, want curl's parse error", tc.name, err)
			}
			continue
		}
		got := map[string]string{}
		for k, addrs := range table {
			var s []string
			for _, a := range addrs {
				s = append(s, a.String())
			}
			got[k] = strings.Join(s, " ")
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v %v, want %v", tc.name, got, err, tc.want)
		}
	}
}

// TestResolveSetting collects the entries for the URL in config order, an
// empty value clearing the ones before.
func TestResolveSetting(t *testing.T) {
	cfg := repo.Config{
		{Key: "http.curloptresolve", Value: "h:443:127.0.0.2"},
		{Key: "http.curloptresolve", Value: "g:443:127.0.0.2"},
		{Key: "http.curloptresolve", Value: ""},
		{Key: "http.https://h.curloptresolve", Value: "h:443:127.0.0.1"},
		{Key: "http.https://other.curloptresolve", Value: "garbage"},
	}
	table, err := resolveSetting(testConfig(cfg, "https://h/r"))
	if err != nil || len(table) != 1 || table["h:443"][0].String() != "127.0.0.1" {
		t.Fatalf("%v %v", table, err)
	}
	if _, err := resolveSetting(testConfig(repo.Config{{Key: "http.curloptresolve", NoValue: true}}, "https://h/r")); err == nil {
		t.Fatal("no value: no error")
	}
}

// TestResolveDialer sends a name the table maps to its addresses in turn
// (the URL's port kept), and every other name as it is.
func TestResolveDialer(t *testing.T) {
	table, err := newResolveTable([]string{"git.example:8443:127.0.0.9,127.0.0.1", "*:9000:127.0.0.3"})
	if err != nil {
		t.Fatal(err)
	}
	var tried []string
	dial := table.dialer(func(_ context.Context, _, addr string) (net.Conn, error) {
		tried = append(tried, addr)
		if strings.HasPrefix(addr, "127.0.0.9:") {
			return nil, errors.New("refused")
		}
		c, _ := net.Pipe()
		return c, nil
	})
	for _, tc := range []struct {
		addr string
		want []string
	}{
		{"Git.Example:8443", []string{"127.0.0.9:8443", "127.0.0.1:8443"}},
		{"git.example:443", []string{"git.example:443"}},
		{"other:9000", []string{"127.0.0.3:9000"}},
		{"127.0.0.1:9001", []string{"127.0.0.1:9001"}},
	} {
		tried = nil
		c, err := dial(context.Background(), "tcp", tc.addr)
		if err != nil || !reflect.DeepEqual(tried, tc.want) {
			t.Errorf("%s: dialed %v (%v), want %v", tc.addr, tried, err, tc.want)
		}
		if c != nil {
			c.Close()
		}
	}
}
