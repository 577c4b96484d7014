#!/usr/bin/env bash
# Builds the course and benchmarks every stage's answer against CUB and the memory's floor;
# writes docs/results/ and refreshes the tables in README.md and the lessons. Options
# (--quick, --dirty-l2, --steps, --lessons, --operations, --multi-gpu, --docs-only):
# scripts/bench.sh --help; the code: course/bench.py.
scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v python3 >/dev/null || { echo "bench.sh: error: python3 is needed; install it (e.g. apt-get install python3)" >&2; exit 4; }
PYTHONPATH="$scripts${PYTHONPATH:+:$PYTHONPATH}" exec python3 -m course.bench --build-first "$@"
