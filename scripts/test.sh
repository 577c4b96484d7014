#!/usr/bin/env bash
# Configures, builds and runs the test suite through the CMake presets. The code and
# the --help text: course/test.py.
scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v python3 >/dev/null || { echo "test.sh: error: python3 is needed; install it (e.g. apt-get install python3)" >&2; exit 4; }
PYTHONPATH="$scripts${PYTHONPATH:+:$PYTHONPATH}" exec python3 -m course.test "$@"
