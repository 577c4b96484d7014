#!/usr/bin/env bash
# Writes the student edition (no answers) into DIR: scripts/export_student.sh [--stages 6-10] DIR
# The code and what is withheld: course/export.py.
scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v python3 >/dev/null || { echo "export_student.sh: error: python3 is needed; install it (e.g. apt-get install python3)" >&2; exit 4; }
PYTHONPATH="$scripts${PYTHONPATH:+:$PYTHONPATH}" exec python3 -m course.export "$@"
