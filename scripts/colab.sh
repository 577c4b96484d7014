#!/usr/bin/env bash
# The commands of the course's Colab notebook (docs/colab.ipynb): build for this GPU only,
# run the template for stage N (default 7) and the student check (course/colab.py).
scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v python3 >/dev/null || { echo "colab.sh: error: python3 is needed; install it (e.g. apt-get install python3)" >&2; exit 4; }
PYTHONPATH="$scripts${PYTHONPATH:+:$PYTHONPATH}" exec python3 -m course.colab "$@"
