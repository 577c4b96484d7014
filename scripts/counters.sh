#!/usr/bin/env bash
# Builds the course, runs Nsight Compute on every stage's answer at n = 2^24 and prints
# one table of the hardware counters each lesson quotes (scripts/counters.py says which).
# Writes docs/results/counters.csv and counters.md. Needs a CUDA device and ncu.
#
# Exit code: 0 done, 3 no CUDA device, 4 build error or ncu missing.
set -euo pipefail
source "$(dirname "$0")/common.sh"

configure_and_build
if ! device=$(probe_device); then
  echo "$device: the counters need a GPU, so nothing was profiled." >&2
  exit 3
fi
if ! command -v ncu >/dev/null; then
  echo "counters.sh: error: ncu (Nsight Compute) is not on PATH; it ships with the CUDA toolkit" >&2
  exit 4
fi
echo "$device"
python3 scripts/counters.py "$@"
