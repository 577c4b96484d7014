#!/usr/bin/env bash
# Builds the course, runs stages and prints each report, then a one-line-per-stage summary.
#
#   scripts/run.sh                     every stage's answer (the student edition: template)
#   scripts/run.sh 7 8                 stages 7 and 8
#   scripts/run.sh --todo 7            your template for stage 7 (stages/stage07_*/todo.cu)
#   scripts/run.sh 8 -- --n 1048576 --block 128    options after -- go to each stage
#
# Exit code: 0 every stage matched, 1 some stage did not, 2 bad arguments,
# 3 no CUDA device (everything was built, nothing ran), 4 build or CUDA error.
set -euo pipefail
source "$(dirname "$0")/common.sh"

usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; }

suffix=""
stages=()
stage_args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --todo) suffix=_todo ;;
    -h | --help) usage; exit 0 ;;
    --) shift; stage_args=("$@"); break ;;
    [0-9] | [0-9][0-9]) stages+=("$(printf '%02d' $((10#$1)))") ;;
    *) echo "run.sh: error: unknown argument '$1'; give stage numbers (e.g. 7 8), --todo, or -- and stage options" >&2
       exit 2 ;;
  esac
  shift
done
if [[ -z $suffix ]] && student_edition; then
  echo "Student edition (no answers/): running your templates, as with --todo."
  suffix=_todo
fi
[[ ${#stages[@]} -gt 0 ]] || mapfile -t stages < <(all_stages)
for s in "${stages[@]}"; do
  if ! stage_dir_name "$s" >/dev/null; then
    echo "run.sh: error: there is no stage $((10#$s)); the stages are: $(all_stages | tr '\n' ' ')" >&2
    exit 2
  fi
done

# Only what runs: the chosen stages' executables and the device probe.
targets=(reduce_probe)
for s in "${stages[@]}"; do targets+=("stage${s}${suffix}"); done
configure_and_build "${targets[@]}"
if ! device=$(probe_device); then
  echo "$device: the stages were built but not run."
  exit 3
fi
echo "$device"

summary=()
worst=0
for s in "${stages[@]}"; do
  name=$(stage_dir_name "$s")
  echo
  echo "=== ${name}${suffix:+ (your template)}: $build_dir/bin/stage${s}${suffix} ${stage_args[*]:-} ==="
  set +e
  output=$("$build_dir"/bin/stage"$s""$suffix" "${stage_args[@]}" 2>&1)
  code=$?
  set -e
  echo "$output"
  case $code in
    0) result="match" ;;
    1) result="MISMATCH" ;;
    *) result="error (exit $code)" ;;
  esac
  (( code > worst )) && worst=$code
  ms=$(sed -n 's/^  GPU time : \(.*\) ms$/\1/p' <<<"$output")
  # A row stage's line goes on: "GB/s (each value read once and written once)".
  gbps=$(sed -n 's/^  Bandwidth: \([0-9.]*\) GB\/s.*$/\1/p' <<<"$output")
  summary+=("$(printf '%-26s %-10s %12s %10s' "$name$suffix" "$result" "${ms:--}" "${gbps:--}")")
done

echo
echo "Summary ($device)"
printf '%-26s %-10s %12s %10s\n' "stage" "result" "GPU time ms" "GB/s"
printf '%s\n' "${summary[@]}"
exit "$worst"
