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
