#!/usr/bin/env bash
# The instructor's check on a machine with a GPU: the whole suite, the todo suite, every
# answer's report, the student check on every answer and the known-wrong corpus, one
# verdict line each (course/gpu_check.py says how).
scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v python3 >/dev/null || { echo "gpu_check.sh: error: python3 is needed; install it (e.g. apt-get install python3)" >&2; exit 4; }
PYTHONPATH="$scripts${PYTHONPATH:+:$PYTHONPATH}" exec python3 -m course.gpu_check "$@"
