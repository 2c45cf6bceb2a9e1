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
export PATH="$root/bin:$PATH" HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0
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

step "3. git-unpack-durable --stats (batch: one writeout per object, one flush after the last rename)"
git init -q --bare "$work/ours"
(cd "$work/ours" && time git unpack-durable --stats <"$work/all.pack")

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
