#!/usr/bin/env bash
# The instructor's check on a machine with a GPU, in one go:
#   1. the whole test suite (host and GPU),
#   2. the todo suite, which must fail cleanly while the templates are unfilled
#      (test failures only: no crash, no time-out),
#   3. every answer's report and the summary (scripts/run.sh),
#   4. the student check (scripts/check.py) on every answer: its GPU tests and
#      compute-sanitizer memcheck, racecheck, synccheck and initcheck at edge-case sizes,
#      a racecheck warning counting as a failure,
#   5. the known-wrong corpus (ctest --preset mistakes): the check must fail every entry
#      with the entry's hint and pass every answer built the way a student's file is.
# Prints one verdict line per step and exits non-zero if any step fails.
set -uo pipefail
source "$(dirname "$0")/common.sh"

configure_and_build
probe_device || exit 3
failures=0
verdict() {  # verdict NAME OK?
  if [[ $2 == 0 ]]; then echo "PASS  $1"; else echo "FAIL  $1"; failures=$((failures + 1)); fi
}

run_ctest default >"$build_dir"/gpu_check_tests.log 2>&1
tests_rc=$?
verdict "test suite: $(grep -E 'tests passed' "$build_dir"/gpu_check_tests.log)" $tests_rc

run_ctest todo >"$build_dir"/gpu_check_todo.log 2>&1
todo_rc=$?
crashes=$(grep -cE 'Exception|SEGFAULT|Timeout|Child aborted' "$build_dir"/gpu_check_todo.log)
verdict "todo suite fails cleanly: $(grep -E 'tests passed' "$build_dir"/gpu_check_todo.log), $crashes crashes" \
  $(( (todo_rc != 0 && crashes == 0) ? 0 : 1 ))

scripts/run.sh >"$build_dir"/gpu_check_run.log 2>&1
run_rc=$?
verdict "every answer matches (scripts/run.sh)" $run_rc

python3 scripts/check.py --answers --build-dir "$build_dir" --jobs 8 >"$build_dir"/gpu_check_answers.log 2>&1
answers_rc=$?
grep -E '^(---|✅|❌)' "$build_dir"/gpu_check_answers.log
verdict "student check on every answer: $(grep -c '^✅' "$build_dir"/gpu_check_answers.log) checks passed, $(grep -c '^❌' "$build_dir"/gpu_check_answers.log) failed" $answers_rc

run_ctest mistakes >"$build_dir"/gpu_check_mistakes.log 2>&1
mistakes_rc=$?
verdict "known-wrong corpus: $(grep -E 'tests passed' "$build_dir"/gpu_check_mistakes.log)" $mistakes_rc

sed -n '/^Summary/,$p' "$build_dir"/gpu_check_run.log
exit $(( failures > 0 ))
