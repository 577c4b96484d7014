#!/usr/bin/env bash
# The lessons' diagrams: scripts/figures.sh draws every one into its stage folder,
# scripts/figures.sh --check compares them with the committed files. Needs drawsvg:
# python3 -m pip install -r scripts/requirements-figures.txt. The code: course/figures/.
scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v python3 >/dev/null || { echo "figures.sh: error: python3 is needed; install it (e.g. apt-get install python3)" >&2; exit 4; }
PYTHONPATH="$scripts${PYTHONPATH:+:$PYTHONPATH}" exec python3 -m course.figures "$@"
