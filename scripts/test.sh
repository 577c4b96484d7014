#!/usr/bin/env bash
# Configures, builds and runs the test suite through the CMake presets.
#
#   scripts/test.sh              host tests and GPU tests of every answer (without a CUDA
#                                device the GPU tests are reported as skipped, with the reason;
#                                the student edition has no answers, so no answer tests)
#   scripts/test.sh --todo       the GPU tests against every template (they fail until the
#                                TODO blocks are filled in)
#   scripts/test.sh --todo 7     the same for stage 7's template only
#   --verbose                    also print ctest's own output as it runs
#
# Prints one line per test label (passed, failed, skipped and why), every failure in full
# and a closing count; ctest's own output is kept in build/ctest.log either way.
# REDUCE_BUILD_DIR=DIR uses a build in DIR instead of build/.
# Exit code: ctest's (0 when every test that ran passed), 2 for bad arguments.
set -euo pipefail
source "$(dirname "$0")/common.sh"

preset=default
filter=()
stage=""
verbose=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --todo) preset=todo ;;
    --verbose) verbose=1 ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    [0-9] | [0-9][0-9])
      [[ $preset == todo ]] || { echo "test.sh: error: a stage number goes after --todo, e.g. scripts/test.sh --todo 7" >&2; exit 2; }
      stage_dir_name "$(printf '%02d' $((10#$1)))" >/dev/null || { echo "test.sh: error: there is no stage $((10#$1)); the stages are: $(all_stages | tr '\n' ' ')" >&2; exit 2; }
      stage=$(printf '%02d' $((10#$1)))
      filter=(-R "^stage${stage}_todo\\.") ;;
    *) echo "test.sh: error: unknown argument '$1'; use --todo [stage number], --verbose or nothing" >&2; exit 2 ;;
  esac
  shift
done

if [[ $preset == default ]] && student_edition; then
  echo "Student edition (no answers/): host and harness tests only; test your templates with scripts/test.sh --todo or scripts/check.sh."
fi
configure_and_build
[[ -z $stage ]] || require_nccl_for "$stage"
if ! probe_device; then
  echo "The GPU tests will be reported as skipped: they need a CUDA device."
fi
log=$build_dir/ctest.log
junit=$(cd "$build_dir" && pwd)/ctest-junit.xml
rm -f "$junit"
echo "Running the $preset tests${filter[*]:+ (${filter[*]})} in $build_dir ..."
set +e
if [[ $verbose == 1 ]]; then
  run_ctest "$preset" "${filter[@]}" --output-junit "$junit" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
else
  run_ctest "$preset" "${filter[@]}" --output-junit "$junit" >"$log" 2>&1
  rc=$?
fi
set -e
if [[ -f $junit ]]; then
  python3 scripts/test_summary.py "$junit"
else
  tail -n 20 "$log"
fi
echo "ctest's own output: $log"
exit "$rc"
