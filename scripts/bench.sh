#!/usr/bin/env bash
# Builds the course and benchmarks every stage's answer against CUB and the memory's
# floor (scripts/bench.py says how). Writes docs/results/ and refreshes the tables in
# README.md and the lessons. Needs a CUDA device and python3 (matplotlib for the chart).
#
#   scripts/bench.sh              n = 2^10 to 2^30, each run from a clean L2 (about 6 minutes
#                                 on an H100)
#   scripts/bench.sh --quick      n = 2^24 only, a smoke test (README and lessons left alone)
#   scripts/bench.sh --dirty-l2   the L2 full of dirty lines instead (docs/results/dirty-l2/)
#   scripts/bench.sh --steps      stage 14's techniques one at a time (stage14_steps.md)
#   scripts/bench.sh --lessons    every block size, the lessons' variants and a -G build
#                                 (lessons.md, about 3 minutes on an H100)
#   scripts/bench.sh --operations max, softmax and layer norm (stages 15 to 17), every
#                                 version and block, against CUB's max and their floors
#                                 (operations.md)
#   scripts/bench.sh --multi-gpu  stage 18 on 1 and 2 GPUs at n = 2^28 to 2^31 - 1, and the
#                                 NCCL all-reduce of 1 MiB to 1 GiB (multi_gpu.md; needs NCCL)
#
# Exit code: 0 every run verified, 1 some did not, 2 the student edition (no answers/shared/:
# nothing to measure), 3 no CUDA device, 4 build error.
set -euo pipefail
source "$(dirname "$0")/common.sh"

if [[ ! -d answers/shared ]]; then
  echo "bench.sh: error: the benchmark needs the instructor edition (it times answers/ and bench_read, which the student edition leaves out); time your own stage with scripts/run.sh --todo N" >&2
  exit 2
fi

configure_and_build
if [[ " $* " == *" --lessons "* && -d answers ]]; then  # the student edition has no variants
  configure_and_build lesson_variants  # not part of `all`: only this run needs them
fi
if ! device=$(probe_device); then
  echo "$device: the benchmark needs a GPU, so nothing was measured." >&2
  exit 3
fi
echo "$device"
python3 scripts/bench.py "$@"
