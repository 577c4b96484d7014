#!/usr/bin/env bash
# A new user's first run, timed: the README's commands in a fresh copy of this checkout
# (its files, no build folder), configure and build included, on whatever GPU this machine has. Then the student
# check of stage 7 on its answer, in that clone and in a second fresh clone.
#   scripts/first_run.sh [WORK_DIR]     (default: a new temporary folder)
# Prints one line per command with its exit code and wall time; each command's output goes to
# WORK_DIR/<name>.log. docs/measurements.md records what it printed on the H100.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"

timed() {  # name, folder, command...
  local name=$1 dir=$2
  shift 2
  local start end code
  start=$(date +%s%N)
  (cd "$dir" && "$@") >"$work/${name%% *}.log" 2>&1
  code=$?
  end=$(date +%s%N)
  local tenths=$(((end - start) / 100000000))
  printf '%-36s exit %d  %4d.%d s\n' "$name" "$code" $((tenths / 10)) $((tenths % 10))
}

fresh_clone() {  # folder: this checkout's files as a clone holds them, no build folder and
  # no git metadata (a copy of the working tree, so that it also works where the checkout was
  # copied without its up-to-date .git, as on the lent GPU machines)
  rm -rf "$1"
  mkdir -p "$1"
  tar -C "$root" --exclude=./.git --exclude=./build --exclude='./build-*' --exclude=./.ccache \
    -cf - . | tar -C "$1" -xf - || { echo "first_run.sh: copying the checkout failed" >&2; exit 4; }
}

answer_as_template() {  # folder: stage 7's answer in place of its template
  (cd "$1" && cp answers/stage07_interleaved/todo.cu stages/stage07_interleaved/todo.cu)
}

echo "first run in $work on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1) ($(nproc) cores)"
fresh_clone "$work/clone"
timed "run (scripts/run.sh, fresh clone)" "$work/clone" scripts/run.sh
timed "test (scripts/test.sh, after run.sh)" "$work/clone" scripts/test.sh
answer_as_template "$work/clone"
timed "check (scripts/check.sh 7, after)" "$work/clone" scripts/check.sh 7
fresh_clone "$work/clone2"
answer_as_template "$work/clone2"
timed "check-fresh (scripts/check.sh 7, fresh)" "$work/clone2" scripts/check.sh 7
grep -h '^tests: \|took\|^결과' "$work"/*.log
