#!/usr/bin/env bash
# Builds the course, runs Nsight Compute on every stage's answer and writes
# docs/results/counters.csv and counters.md (course/counters.py says which counters).
scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v python3 >/dev/null || { echo "counters.sh: error: python3 is needed; install it (e.g. apt-get install python3)" >&2; exit 4; }
PYTHONPATH="$scripts${PYTHONPATH:+:$PYTHONPATH}" exec python3 -m course.counters --build-first "$@"
