#!/usr/bin/env bash
# Builds the course, runs stages and prints each report, then a one-line-per-stage
# summary. The code and the --help text: course/run.py.
scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v python3 >/dev/null || { echo "run.sh: error: python3 is needed; install it (e.g. apt-get install python3)" >&2; exit 4; }
PYTHONPATH="$scripts${PYTHONPATH:+:$PYTHONPATH}" exec python3 -m course.run "$@"
