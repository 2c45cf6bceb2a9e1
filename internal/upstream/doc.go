// Package upstream is the protocol git-remote-durable speaks with the
// upstream's upload-pack and receive-pack: one table of schemes (scheme.go)
// picks each address's transport and git's policy default for it, and the
// sessions — the advertisement streamed ref by ref, v0's refs or v2's
// capabilities behind one dialect, the fetch request and its pack, the push
// and its report — speak through transport.Transport alone.
//
// Below it, package transport holds the Address, the credential protocol,
// the redactor and the failures git names in its own words, and the one
// Transport interface that transport/stream (file, ssh, git://) and
// transport/http (smart HTTP: its client, settings, redirect and
// credential retry) implement. internal/remote drives this package for the
// dialogue with git; nothing here knows of that dialogue, and the pack it
// fetches goes back to the caller, which writes it: remote → upstream →
// transport, never back up. It imports nothing of the command shell: the
// process's environment comes as a proc.Env, and text from the upstream is
// made printable with package mask.
package upstream
