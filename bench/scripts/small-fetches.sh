#!/bin/bash
# small-fetches.sh — by hand, not in CI: incremental fetches of about 26,
# 129 and 1,020 objects into a mirror of git.git v2.0.0 with its 511 tags,
# over file://, git:// (git daemon) and HTTP (git http-backend), through
# the helpers named beside plain git with its defaults and with its durable
# configuration (core.fsync=committed, core.fsyncMethod=batch); alternated
# rounds, medians. Servers on 127.0.0.1, stopped by process id.
#
#   bench/scripts/small-fetches.sh GITGIT DIR ROUNDS NAME=HELPERDIR...
#
# GITGIT: a bare clone of git.git; DIR: a scratch directory on the disk
# under test (a journaled ext4: the batch scheme falls back elsewhere);
# each NAME=HELPERDIR a directory holding a git-remote-durable to measure.
# TRANSPORTS (default "file git http") picks the transports: a git built
# without curl (NO_CURL) has no HTTP of its own. The git on PATH drives.
set -e
R=$1; D=$2; ROUNDS=$3; shift 3
mkdir -p "$D"; cd "$D"
export HOME=$D/home GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0
mkdir -p "$HOME"
rm -rf up.git template.git run.git
git init -q --bare up.git
echo "$R/objects" > up.git/objects/info/alternates
BASE=$(git -C "$R" rev-parse 'v2.0.0^{commit}')
git -C up.git update-ref refs/heads/master "$BASE"
git -C "$R" for-each-ref --merged v2.0.0 --format='create %(refname) %(objectname)' refs/tags | git -C up.git update-ref --stdin
git -C "$R" rev-list --first-parent --reverse v2.0.0..v2.1.0 > chain.txt
git clone -q --mirror "file://$D/up.git" template.git
git -C template.git config gc.auto 0
# One fetch through the helper, as a mirror's first of a boot: the sweep's
# record, so that the rows measure every later fetch.
first=${1#*=}
git -C template.git remote set-url origin "durable::file://$D/up.git"
PATH=$first:$PATH git -C template.git fetch -q
git -C template.git remote set-url origin "file://$D/up.git"

git daemon --reuseaddr --listen=127.0.0.1 --port=19419 --base-path="$D" --export-all "$D" >/dev/null 2>&1 & DPID=$!
cat > web.go <<'GO'
package main

import (
	"net/http"
	"net/http/cgi"
	"os"
)

func main() {
	h := &cgi.Handler{Path: os.Args[1], Env: []string{"GIT_PROJECT_ROOT=" + os.Args[2], "GIT_HTTP_EXPORT_ALL=1"},
		InheritEnv: []string{"PATH", "HOME", "GIT_CONFIG_NOSYSTEM"}}
	http.ListenAndServe("127.0.0.1:18081", h)
}
GO
go build -o web web.go
./web "$(git --exec-path)/git-http-backend" "$D" & HPID=$!
trap 'pkill -P $DPID; kill $DPID $HPID' EXIT
sleep 1
for step in 2 5 55; do
  git -C up.git update-ref refs/heads/master "$(sed -n ${step}p chain.txt)"
  n=$(git -C "$R" rev-list --objects --count "$(sed -n ${step}p chain.txt)" "^$BASE")
  for r in $(seq "$ROUNDS"); do
    for tr in ${TRANSPORTS:-file git http}; do
      case $tr in
        file) U=file://$D/up.git;; git) U=git://127.0.0.1:19419/up.git;; http) U=http://127.0.0.1:18081/up.git;;
      esac
      for v in "$@" git gitdurable; do
        rm -rf run.git; cp -a template.git run.git
        P=$PATH; C=(); url=$U
        case $v in
          git) ;;
          gitdurable) C=(-c core.fsync=committed -c core.fsyncMethod=batch);;
          *) P=${v#*=}:$PATH; url=durable::$U;;
        esac
        git -C run.git remote set-url origin "$url"
        sync
        s=$EPOCHREALTIME
        PATH=$P git -C run.git "${C[@]}" fetch -q
        e=$EPOCHREALTIME
        echo "$n $tr ${v%%=*} $(echo "$e - $s" | bc)"
      done
    done
  done
done > runs.txt
# medians: objects transport variant seconds
sort -k1,1n -k2,2 -k3,3 -k4,4n runs.txt | awk '
  { k=$1" "$2" "$3; v[k]=v[k]" "$4; n[k]++ }
  END { for (k in v) { split(substr(v[k],2), a, " "); m=a[int((n[k]+1)/2)]; print k, m } }' | sort -k1,1n -k2,2 -k3,3
