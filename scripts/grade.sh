#!/usr/bin/env bash
# The instructors' grader: grades a class of student-edition copies on one GPU machine.
# The code and the --help text: scripts/course/grade/cli.py; the guide: docs/grading.md.
scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v python3 >/dev/null || { echo "grade.sh: error: python3 is needed; install it (e.g. apt-get install python3)" >&2; exit 4; }
PYTHONPATH="$scripts${PYTHONPATH:+:$PYTHONPATH}" exec python3 -m course.grade.cli "$@"
