package http

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/git-durable/git-durable/internal/repo"
)

// resolveTable is http.curloptResolve as curl's CURLOPT_RESOLVE loads it
// into its name cache: "[+]HOST:PORT:ADDR[,ADDR]…" makes a name connect
// to those addresses (in that order), replacing what an earlier entry
// said; "-HOST:PORT" forgets an earlier entry; HOST "*" stands for every
// name on that port. Names compare without case. The table decides only
// where a connection goes: TLS still checks the certificate against the
// URL's host.
type resolveTable map[string][]netip.Addr

// resolveSetting is the table of the http.curloptResolve entries for the
// URL, in order; an empty value resets the list, as in git.
func resolveSetting(hc config) (resolveTable, error) {
	var entries []string
	var err error
	hc.each("curloptResolve", func(e repo.Entry) {
		switch {
		case e.NoValue:
			err = fmt.Errorf("missing value for '%s'", e.Key)
		case e.Value == "":
			entries = nil
		default:
			entries = append(entries, e.Value)
		}
	})
	if err != nil {
		return nil, err
	}
	return newResolveTable(entries)
}

// newResolveTable reads the entries (after the last empty value, which
// resets the list), failing as curl fails the transfer on an entry it
// cannot parse.
func newResolveTable(entries []string) (resolveTable, error) {
	t := resolveTable{}
	for _, e := range entries {
		if rest, ok := strings.CutPrefix(e, "-"); ok {
			// curl ignores a removal it cannot parse.
			host, port, ok := strings.Cut(rest, ":")
			if n, err := strconv.Atoi(port); ok && host != "" && err == nil {
				delete(t, resolveKey(host, strconv.Itoa(n)))
			}
			continue
		}
		host, port, addrs, ok := parseResolve(strings.TrimPrefix(e, "+"))
		if !ok {
			// CURLE_SETOPT_OPTION_SYNTAX, on git's first request
			return nil, &transferError{code: 49, msg: fmt.Sprintf("Couldn't parse CURLOPT_RESOLVE entry '%s'", e), initial: true}
		}
		t[resolveKey(host, port)] = addrs
	}
	return t, nil
}

// parseResolve splits "HOST:PORT:ADDR[,ADDR]…"; an address may stand in
// [brackets], an empty one is skipped, and there must be one at least.
func parseResolve(e string) (host, port string, addrs []netip.Addr, ok bool) {
	host, rest, ok := strings.Cut(e, ":")
	if !ok || len(host) > 255 {
		return "", "", nil, false
	}
	port, list, ok := strings.Cut(rest, ":")
	n, err := strconv.ParseUint(port, 10, 16)
	if !ok || err != nil {
		return "", "", nil, false
	}
	for _, a := range strings.Split(list, ",") {
		if strings.HasPrefix(a, "[") {
			if !strings.HasSuffix(a, "]") || len(a) < 2 {
				return "", "", nil, false
			}
			a = a[1 : len(a)-1]
		}
		if a == "" {
			continue
		}
		ip, err := netip.ParseAddr(a)
		if err != nil {
			return "", "", nil, false
		}
		addrs = append(addrs, ip)
	}
	return host, strconv.FormatUint(n, 10), addrs, len(addrs) > 0
}

func resolveKey(host, port string) string {
	return strings.ToLower(host) + ":" + port
}

// lookup returns the addresses an entry gives for the host and port, if
// one does.
func (t resolveTable) lookup(host, port string) ([]netip.Addr, bool) {
	if a, ok := t[resolveKey(host, port)]; ok {
		return a, true
	}
	a, ok := t[resolveKey("*", port)]
	return a, ok
}

// dialer connects as next does, to the addresses the table gives for the
// name when it gives any, trying them in order.
func (t resolveTable) dialer(next func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return next(ctx, network, addr)
		}
		addrs, ok := t.lookup(host, port)
		if !ok {
			return next(ctx, network, addr)
		}
		for _, a := range addrs {
			var c net.Conn
			if c, err = next(ctx, network, net.JoinHostPort(a.String(), port)); err == nil {
				return c, nil
			}
		}
		return nil, err
	}
}
