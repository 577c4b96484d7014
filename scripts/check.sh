#!/usr/bin/env bash
# The student's check: scripts/check.sh N checks stage N's template, scripts/check.sh
# alone shows where every stage stands. The code and the --help text: course/check.py.
scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v python3 >/dev/null || { echo "check.sh: error: python3 is needed; install it (e.g. apt-get install python3)" >&2; exit 4; }
PYTHONPATH="$scripts${PYTHONPATH:+:$PYTHONPATH}" exec python3 -m course.check "$@"
