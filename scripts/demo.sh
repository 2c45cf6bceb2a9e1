#!/usr/bin/env bash
# make demo: the unpacker's main job on a generated repository.
#   1. make a repository with history (fast-import: 200 files, 400 commits)
#   2. pack it with git pack-objects (OFS deltas and chains)
#   3. unpack it with git-unpack-durable --stats into a fresh repository
#   4. check it with git fsck --strict and compare with git unpack-objects
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/git-durable-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
export PATH="${BIN:-$root/bin}:$PATH" HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0
mkdir -p "$HOME"
step() { printf '\n== %s\n' "$*"; }

step "1. a repository with history"
git init -q --bare -b main "$work/src"
{
	files=200 commits=400 t=1700000000
	declare -a body
	for ((f = 0; f < files; f++)); do
		body[f]=$(for ((l = 0; l < 40; l++)); do echo "file $f line $l: $RANDOM$RANDOM"; done)
	done
	for ((c = 0; c <= commits; c++)); do
		echo "commit refs/heads/main"
		echo "committer Demo <demo@example.com> $((t + 60 * c)) +0000"
		msg="commit $c"; echo "data ${#msg}"; echo "$msg"
		if ((c == 0)); then list=$(seq 0 $((files - 1))); else list="$((RANDOM % files)) $((RANDOM % files))"; fi
		for f in $list; do
			if ((c > 0)); then body[f]=$(printf '%s\n' "${body[f]}" | sed "$((RANDOM % 40 + 1))s/.*/edit in commit $c: $RANDOM/"); fi
			echo "M 100644 inline src/d$((f % 8))/file$f.txt"
			echo "data $((${#body[f]} + 1))"; printf '%s\n\n' "${body[f]}"
		done
	done
} | git -C "$work/src" fast-import --quiet
echo "$(git -C "$work/src" rev-list --count main) commits, $(git -C "$work/src" rev-list --objects --all | wc -l) objects"

step "2. a pack of everything (git pack-objects --all --delta-base-offset)"
git -C "$work/src" pack-objects --all --delta-base-offset --stdout -q </dev/null >"$work/all.pack"
echo "$(wc -c <"$work/all.pack") bytes"

# why_not_batch explains, once, a stats line whose path is not the batch
# scheme: the fallback runs where the filesystem does not carry it.
explained=
why_not_batch() {
	local path reason
	path=$(grep -o '"path":"[a-z-]*"' <<<"$1" | cut -d'"' -f4)
	reason=$(grep -o '"reason":"[^"]*"' <<<"$1" | cut -d'"' -f4 || true)
	if [ "$path" = fallback-fsync ] && [ -z "$explained" ]; then
		explained=1
		echo "-> path fallback-fsync, not batch: $reason ($work)."
		echo "   So every object got a full fsync, and each directory too: as durable as batch, slower."
		echo "   On ext4 with a journal or on xfs the batch scheme runs (make demo TMPDIR=<a directory there>)."
	fi
}

step "3. git-unpack-durable --stats (batch where the filesystem carries it: one writeout per object, one flush after the last rename)"
git init -q --bare "$work/ours"
(cd "$work/ours" && time git unpack-durable --stats <"$work/all.pack" 2>"$work/stats3")
cat "$work/stats3"
why_not_batch "$(cat "$work/stats3")"

step "4. git fsck --strict, and the same pack through git unpack-objects"
git -C "$work/ours" fsck --strict --no-dangling 2>&1 | grep -v '^notice' || true
git init -q --bare "$work/git"
(cd "$work/git" && git unpack-objects -q <"$work/all.pack")
if diff <(git -C "$work/git" cat-file --batch-all-objects --batch-check) \
	<(git -C "$work/ours" cat-file --batch-all-objects --batch-check) >/dev/null; then
	echo "same $(git -C "$work/ours" count-objects | cut -d' ' -f1) objects as git unpack-objects, all loose, fsck clean"
else
	echo "objects differ from git unpack-objects" >&2
	exit 1
fi

# 5–8: the remote helper, end to end: a mirror of the repository served by
# git daemon, cloned and fetched through git-remote-durable.
daemon_pid=
trap '[ -z "$daemon_pid" ] || kill "$daemon_pid" 2>/dev/null; rm -rf "$work"' EXIT
export GIT_REMOTE_DURABLE_STATS="$work/stats"
field() { grep -o "\"$1\":\"*[a-z0-9.-]*" <<<"$2" | head -1 | cut -d: -f2 | tr -d '"'; }
counters() { # the helper's lines since the last call: each fetch batch, then the session
	touch "$GIT_REMOTE_DURABLE_STATS"
	while read -r line; do
		sync="$(field path "$line"): writeout-only $(field writeout-only "$line"), hardware-flush $(field hardware-flush "$line")"
		if [ "$(field kind "$line")" = session ]; then
			echo "the whole $(field op "$line") ($(field result "$line")): its batches, then $(field settled "$line") of the repository's files settled as it ended; $sync"
			continue
		fi
		echo "fetch batch: $(field objects "$line") objects received, $(field written "$line") written; $sync"
		why_not_batch "$line"
	done <"$GIT_REMOTE_DURABLE_STATS"
	: >"$GIT_REMOTE_DURABLE_STATS"
}

step "5. serve it with git daemon on 127.0.0.1"
for attempt in 1 2 3 4 5 6 7 8 9 10; do
	port=$((20000 + RANDOM % 40000))
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi # taken
	git daemon --export-all --base-path="$work" --listen=127.0.0.1 --port="$port" --reuseaddr "$work" 2>"$work/daemon.log" &
	daemon_pid=$!
	for _ in $(seq 50); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break 2; fi
		kill -0 "$daemon_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill "$daemon_pid" 2>/dev/null || true
	daemon_pid=
done
[ -n "$daemon_pid" ] || { echo "git daemon did not start" >&2; exit 1; }
echo "git://127.0.0.1:$port/src"

step "6. git clone durable::git://127.0.0.1:$port/src (every object written durably before git is told)"
(cd "$work" && time git clone -q "durable::git://127.0.0.1:$port/src" clone)
counters
git -C "$work/clone" fsck --strict --no-dangling 2>&1 | grep -v '^notice' || true
echo "$(git -C "$work/clone" count-objects | cut -d' ' -f1) loose objects, $(ls "$work/clone/.git/objects/pack" | grep -c '\.pack$' || true) packs, fsck clean"

step "7. three new commits upstream"
{
	for c in 1 2 3; do
		echo "commit refs/heads/main"
		echo "committer Demo <demo@example.com> $((1800000000 + 60 * c)) +0000"
		msg="upstream commit $c"; echo "data ${#msg}"; echo "$msg"
		if ((c == 1)); then echo "from refs/heads/main^0"; fi
		body="$(git -C "$work/src" cat-file -p main:src/d0/file0.txt)
upstream edit $c: $RANDOM"
		echo "M 100644 inline src/d0/file0.txt"
		echo "data $((${#body} + 1))"; printf '%s\n\n' "$body"
	done
} | git -C "$work/src" fast-import --quiet
git -C "$work/src" log --oneline -3

step "8. git fetch through the helper (a thin pack against what the clone has)"
git -C "$work/clone" fetch
counters
git -C "$work/clone" fsck --strict --no-dangling 2>&1 | grep -v '^notice' || true
if [ "$(git -C "$work/src" rev-parse main)" = "$(git -C "$work/clone" rev-parse origin/main)" ]; then
	echo "origin/main is the upstream's main, fsck clean"
else
	echo "the fetch did not bring main" >&2
	exit 1
fi

step "9. what durability costs: the same fetch into loose objects, three ways"
# On a journaled ext4 of its own where the demo can make one (root, a loop
# device); elsewhere in the demo's directory, which it says.
fsdir=$work
if [ "$(id -u)" = 0 ] && command -v mkfs.ext4 >/dev/null && truncate -s 256M "$work/ext4.img" &&
	mkfs.ext4 -q -F "$work/ext4.img" && mkdir -p "$work/mnt" && mount -o loop "$work/ext4.img" "$work/mnt" 2>/dev/null; then
	fsdir=$work/mnt
	trap '[ -z "$daemon_pid" ] || kill "$daemon_pid" 2>/dev/null; umount "$work/mnt" 2>/dev/null; rm -rf "$work"' EXIT
	echo "on a journaled ext4 of its own (a loop device)"
else
	echo "on $work ($(stat -f -c %T "$work")): not root, or no loop device, so no journaled ext4 of the demo's own; the flushes are as many, the times say less"
fi
# flushes sums the device flushes a trace2 event file counts (git's fsync
# counters, and the helper's in git's form).
flushes() {
	grep -o '"fsync/hardware-flush","value":"[0-9]*"\|"name":"hardware-flush","count":[0-9]*' "$1" 2>/dev/null |
		grep -o '[0-9]*"*$' | tr -d '"' | awk '{s += $1} END {print s + 0}'
}
fetch_as() { # fetch_as <label> <url> <git options>...: into a new repository
	local label=$1 url=$2 dir t2 s e
	shift 2
	dir=$fsdir/$(echo "$label" | tr -c 'a-z' '_')
	t2=$dir.trace
	rm -rf "$dir" "$t2"
	git init -q --bare "$dir"
	sync
	s=$(date +%s.%N)
	GIT_TRACE2_EVENT="$t2" git -C "$dir" -c fetch.unpackLimit=100000 "$@" fetch -q "$url" '+refs/heads/*:refs/heads/*'
	e=$(date +%s.%N)
	printf '%-46s %6.2f s, %5s device flushes, %s loose objects\n' "$label" "$(echo "$e - $s" | bc)" "$(flushes "$t2")" \
		"$(git -C "$dir" count-objects | cut -d' ' -f1)"
}
url=git://127.0.0.1:$port/src
fetch_as "plain git (its defaults: objects not synced)" "$url"
fetch_as "plain git, core.fsync=loose-object,reference" "$url" -c core.fsync=loose-object,reference -c core.fsyncMethod=fsync
fetch_as "through the helper (durable::)" "durable::$url"
echo "-> git's defaults leave a crash free to empty or tear those loose objects; its fsync of each pays a flush each;"
echo "   the helper makes the same objects, and the refs, durable with a few flushes."
