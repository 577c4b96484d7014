#!/usr/bin/env bash
# Builds the course and benchmarks every stage's answer against CUB and a
# device-to-device copy (scripts/bench.py says how). Writes docs/results/ and refreshes
# the stage table in README.md. Needs a CUDA device and python3 (matplotlib for the chart).
#
#   scripts/bench.sh            n = 2^24 and a sweep from 2^16 to 2^28
#   scripts/bench.sh --quick    n = 2^24 only, a smoke test (README.md left alone)
#
# Exit code: 0 every run verified, 1 some did not, 3 no CUDA device, 4 build error.
set -euo pipefail
source "$(dirname "$0")/common.sh"

configure_and_build
if ! device=$(probe_device); then
  echo "$device: the benchmark needs a GPU, so nothing was measured." >&2
  exit 3
fi
echo "$device"
python3 scripts/bench.py "$@"
