// Package upstream is everything git-remote-durable knows of the upstream:
// the address (parsed once into an Address by ParseAddress, with git's
// checks; the table of schemes, one row a protocol: its port, stream or
// requests, its transport; the redactor of secrets), git's protocol
// policy, credentials (git credential), the HTTP settings
// and client (urlmatch, TLS, pinning, resolve, proxy, low speed, redirects,
// credentials per origin), the transports (the user's ssh or git itself
// for a local path, git daemon over TCP) and the dialers that open a
// session over one (streamDialer) or over smart HTTP's requests
// (httpDialer, which owns the client and the credentials), the sessions with
// upload-pack and receive-pack (the advertisement streamed ref by ref, the
// fetch request and its pack, the push and its report), and git's words
// for an upstream's failures.
//
// internal/remote drives it for the dialogue with git; nothing here knows
// of that dialogue, and the pack it fetches goes back to the caller, which
// writes it: remote → upstream → unpack, never back up. It imports nothing
// of the command shell: the process's environment comes as a proc.Env,
// and text from the upstream is made printable with package mask.
package upstream
