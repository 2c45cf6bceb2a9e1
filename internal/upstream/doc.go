// Package upstream is everything git-remote-durable knows of the upstream:
// the URL (parsing, anonymizing, the redactor of secrets), git's protocol
// policy and URL checks, credentials (git credential), the HTTP settings
// and client (urlmatch, TLS, pinning, resolve, proxy, low speed, redirects,
// credentials per origin), the transports (the user's ssh or git itself
// for a local path, git daemon over TCP, smart HTTP), the sessions with
// upload-pack and receive-pack (the advertisement streamed ref by ref, the
// fetch request and its pack, the push and its report), and git's words
// for an upstream's failures.
//
// internal/remote drives it for the dialogue with git; nothing here knows
// of that dialogue, and the pack it fetches goes back to the caller, which
// writes it: remote → upstream → unpack, never back up.
package upstream
