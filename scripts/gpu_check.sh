#!/usr/bin/env bash
# The instructor's check on a machine with a GPU, in one go:
#   1. the whole test suite (host and GPU),
#   2. the todo suite, which must fail cleanly while the templates are unfilled
#      (test failures only: no crash, no time-out),
#   3. every answer's report and the summary (scripts/run.sh),
#   4. compute-sanitizer racecheck, memcheck and synccheck on every answer.
# Prints one verdict line per step and exits non-zero if any step fails.
set -uo pipefail
source "$(dirname "$0")/common.sh"

configure_and_build
probe_device || exit 3
failures=0
verdict() {  # verdict NAME OK?
  if [[ $2 == 0 ]]; then echo "PASS  $1"; else echo "FAIL  $1"; failures=$((failures + 1)); fi
}

ctest --preset default >build/gpu_check_tests.log 2>&1
tests_rc=$?
verdict "test suite: $(grep -E 'tests passed' build/gpu_check_tests.log)" $tests_rc

ctest --preset todo >build/gpu_check_todo.log 2>&1
todo_rc=$?
crashes=$(grep -cE 'Exception|SEGFAULT|Timeout|Child aborted' build/gpu_check_todo.log)
verdict "todo suite fails cleanly: $(grep -E 'tests passed' build/gpu_check_todo.log), $crashes crashes" \
  $(( (todo_rc != 0 && crashes == 0) ? 0 : 1 ))

scripts/run.sh >build/gpu_check_run.log 2>&1
run_rc=$?
verdict "every answer matches (scripts/run.sh)" $run_rc

for stage in $(all_stages); do
  for tool in racecheck memcheck synccheck; do
    log=build/gpu_check_${tool}_${stage}.log
    compute-sanitizer --tool "$tool" --error-exitcode 99 build/bin/stage"$stage" --n 65536 \
      --repeat 1 >"$log" 2>&1
    rc=$?
    summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1 | sed 's/^========= //')
    verdict "stage $stage $tool: $summary" $(( rc == 0 ? 0 : 1 ))
  done
done

sed -n '/^Summary/,$p' build/gpu_check_run.log
exit $(( failures > 0 ))
