#!/usr/bin/env bash
# Writes stages/NAME/todo.cu from answers/NAME/todo.cu by emptying each TODO block
# (course/make_template.py): scripts/make_template.sh stageNN_name
scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v python3 >/dev/null || { echo "make_template.sh: error: python3 is needed; install it (e.g. apt-get install python3)" >&2; exit 4; }
PYTHONPATH="$scripts${PYTHONPATH:+:$PYTHONPATH}" exec python3 -m course.make_template "$@"
