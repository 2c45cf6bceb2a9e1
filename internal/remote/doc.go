// Package remote is git-remote-durable, a git remote helper (see
// gitremote-helpers(7)): the dialogue with git. It reaches the real
// upstream through internal/upstream, and writes every object it receives
// through the project's one unpack path (internal/unpack) before it tells
// git that a fetch is done.
//
// git drives the dialogue, one command per line on stdin, each answered on
// stdout:
//
//	capabilities         fetch, push, option, check-connectivity, object-format
//	option <name> <val>  ok | unsupported | error <why>
//	list [for-push]      the upstream's refs: "<oid> <ref>", "@<target> HEAD",
//	                     "<oid> <tag>^{}" for peeled tags, first
//	                     ":object-format <sha1|sha256>" (the upstream's)
//	fetch <oid> <ref>    a batch ended by a blank line: negotiate (wants, haves),
//	                     receive the pack straight into unpack.Run (batch: a
//	                     writeout per object, one flush after the last rename),
//	                     then answer [connectivity-ok] and a blank line
//	push [+]<src>:<dst>  a batch: git pack-objects --thin of what the upstream
//	                     lacks, the ref updates through receive-pack, then
//	                     "ok <dst>" or "error <dst> <why>" per ref
//
// Never connect or stateless-connect: those would hand the pack back to git's
// own unpack-objects and bypass the durable write path.
//
// Run takes the streams and returns an error, and nothing below it exits, so
// the loop is tested in memory against upstreams on the local disk.
package remote

// Usage is what -h and --help print after "usage: ": every mode of
// git-remote-durable, and its exit codes.
const Usage = `git-remote-durable <remote> [<url>]
   or: git-remote-durable --update-mirrors [<options>] <dir>...
   or: git-remote-durable --check [<dir>...]
   or: git-remote-durable --verify [--rate <bytes>] <dir>...
   or: git-remote-durable --version

git runs it for the URLs durable::<url> and durable://<host>/<path>, which
fetch through it and write every object durably. An operator runs it to
update every mirror at and under <dir>s (--update-mirrors -h for its
options) and to say whether fetches there would be durable (--check -h).
See git-remote-durable(1).

Exit codes: 0 done; 1 a mirror failed, or would not fetch durably
(--check); 128 a fatal error; 129 a usage error (and -h).`
