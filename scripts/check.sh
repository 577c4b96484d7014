#!/usr/bin/env bash
# The student's check. After filling in a TODO block:
#
#   scripts/check.sh 7      build stage 7's template, run its GPU tests and the four
#                           compute-sanitizer tools, one line per check with a hint
#   scripts/check.sh        where you stand: every stage not started, failing or passing
#
# Full tool output goes to build/check/stageNN/*.log (each failing line names its log).
# Exit code: 0 everything passed, 1 a check failed or the stage is not started,
# 2 bad arguments, 3 no CUDA device, 4 the build system or a tool is missing.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
case ${1:-} in
  -h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
command -v python3 >/dev/null || { echo "check.sh: error: python3 is needed; install it (e.g. apt-get install python3)" >&2; exit 4; }
exec python3 "$root/scripts/check.py" "$@"
