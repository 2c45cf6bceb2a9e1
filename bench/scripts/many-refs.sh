#!/bin/bash
# many-refs.sh — by hand, not in CI: a fetch of 26 objects into a mirror of
# git.git v2.0.0 with its tags and 100,000 refs/pull/N/head (packed, each on
# a commit of the history), over file://, through the helpers named beside
# plain git; alternated rounds, then one traced run each counting the haves
# upload-pack read.
#
#   bench/scripts/many-refs.sh GITGIT DIR ROUNDS NAME=HELPERDIR...
set -e
R=$1; D=$2; ROUNDS=$3; shift 3
mkdir -p "$D"; cd "$D"
export HOME=$D/home GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0
mkdir -p "$HOME"
if [ ! -d template.git ]; then
  git init -q --bare up.git
  echo "$R/objects" > up.git/objects/info/alternates
  git -C up.git update-ref refs/heads/master "$(git -C "$R" rev-parse 'v2.0.0^{commit}')"
  git -C "$R" for-each-ref --merged v2.0.0 --format='create %(refname) %(objectname)' refs/tags | git -C up.git update-ref --stdin
  git -C "$R" rev-list v2.0.0 | awk '{ c[NR]=$1 } END { for (i=0;i<100000;i++) print "create refs/pull/" i "/head " c[(i*7)%NR+1] }' | git -C up.git update-ref --stdin
  git -C up.git pack-refs --all
  git -C "$R" rev-list --first-parent --reverse v2.0.0..v2.1.0 > chain.txt
  git clone -q --mirror "file://$D/up.git" template.git
  git -C template.git config gc.auto 0
  git -C template.git remote set-url origin "durable::file://$D/up.git"
  PATH=${1#*=}:$PATH git -C template.git fetch -q   # the sweep's record of this boot
  git -C template.git remote set-url origin "file://$D/up.git"
fi
git -C up.git update-ref refs/heads/master "$(sed -n 2p chain.txt)"
run() { # variant, traced
  rm -rf run.git; cp -a template.git run.git
  P=$PATH; url=file://$D/up.git
  if [ "$1" != git ]; then P=${1#*=}:$PATH; url=durable::$url; fi
  git -C run.git remote set-url origin "$url"
  sync
  if [ -n "$2" ]; then
    rm -f trace; PATH=$P GIT_TRACE_PACKET=$D/trace git -C run.git fetch -q
    echo "haves ${1%%=*} $(grep -c 'upload-pack< have ' trace)"
  else
    s=$EPOCHREALTIME; PATH=$P git -C run.git fetch -q; e=$EPOCHREALTIME
    echo "${1%%=*} $(echo "$e - $s" | bc)"
  fi
}
for r in $(seq "$ROUNDS"); do for v in "$@" git; do run "$v"; done; done
for v in "$@" git; do run "$v" traced; done
