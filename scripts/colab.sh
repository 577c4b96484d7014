#!/usr/bin/env bash
# The commands of the course's Colab notebook (docs/colab.ipynb), kept in one script that a
# GPU test runs too, so the notebook cannot fall behind the course.
#
#   scripts/colab.sh [N]     build for this machine's GPU only, run your template for
#                            stage N (default 7) and the student check on it
#
# On a fresh clone the first configure takes the GPU's compute capability (CUDAARCHS), so
# only one architecture is compiled: about a minute on Colab's two cores instead of five.
# Exit code: 0 the commands ran (an unfilled template failing its check is expected),
# 2 bad stage number, 3 no NVIDIA GPU, 4 build error.
set -euo pipefail
source "$(dirname "$0")/common.sh"

stage=${1:-7}
name=""
[[ $stage =~ ^[0-9]{1,2}$ ]] && name=$(stage_dir_name "$(printf '%02d' $((10#$stage)))" 2>/dev/null || true)
if [[ -z $name ]]; then
  echo "colab.sh: error: there is no stage '$stage'; the stages are: $(all_stages | tr '\n' ' ')" >&2
  exit 2
fi
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 || true)
if [[ ! $cap =~ ^[0-9]+\.[0-9]+$ ]]; then
  echo "colab.sh: no NVIDIA GPU found; in Colab choose Runtime > Change runtime type > T4 GPU, then run this cell again" >&2
  exit 3
fi
export CUDAARCHS=${CUDAARCHS:-${cap//./}}
echo "GPU compute capability $cap: building for CUDAARCHS=$CUDAARCHS only"

set +e
scripts/run.sh --todo "$stage"
run=$?
echo
scripts/check.sh "$stage"
check=$?
set -e
# 0 or 1 (a template that is not finished fails) mean both commands ran.
for code in "$run" "$check"; do
  (( code <= 1 )) || exit "$code"
done
echo
echo "colab.sh: ready. Edit stages/$name/todo.cu, then run scripts/check.sh $stage again."
