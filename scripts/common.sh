# Shared by the scripts: configure and build once, quietly unless something fails.
# The build folder is build/ (the CMake presets' folder) unless REDUCE_BUILD_DIR names
# another, e.g. REDUCE_BUILD_DIR=out for a build made by `cmake -S . -B out`.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build_dir=${REDUCE_BUILD_DIR:-build}
build_dir=${build_dir%/}
export REDUCE_BUILD_DIR=$build_dir  # the Python scripts read it too
# The presets' folder is build/; any other folder is configured and tested directly.
uses_presets() { [[ $build_dir == build || $build_dir == "$root/build" ]]; }

quietly() {
  local log
  log=$(mktemp)
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "error: '$*' failed (output above)" >&2
    exit 4
  fi
  rm -f "$log"
}

# Configures (once) and builds: everything, or only the given targets and what they need.
configure_and_build() {
  local targets=()
  [[ $# -gt 0 ]] && targets=(--target "$@")
  if uses_presets; then
    echo "Configuring and building (cmake --preset default; cmake --build --preset default${targets[*]:+ ${targets[*]}}) ..."
    quietly cmake --preset default
    quietly cmake --build --preset default ${targets[@]+"${targets[@]}"}
  else
    echo "Configuring and building in $build_dir (cmake -S . -B $build_dir; cmake --build $build_dir${targets[*]:+ ${targets[*]}}) ..."
    [[ -f $build_dir/CMakeCache.txt ]] || quietly cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
    quietly cmake --build "$build_dir" -j 8 ${targets[@]+"${targets[@]}"}
  fi
}

# ctest with one of the presets' test selections (default, todo, mistakes), in whichever
# build folder is in use; further arguments go to ctest.
run_ctest() {
  local preset=$1
  shift
  if uses_presets; then
    ctest --preset "$preset" "$@"
    return
  fi
  local selection
  case $preset in
    default) selection=(-LE 'todo|mistakes' --output-on-failure) ;;
    todo) selection=(-L todo) ;;
    mistakes) selection=(-L mistakes --output-on-failure) ;;
  esac
  ctest --test-dir "$build_dir" "${selection[@]}" --no-tests=error -j 8 "$@"
}

# The student edition (scripts/export_student.sh) ships without answers/, so only the
# templates are built and tested.
student_edition() {
  [[ ! -d answers ]]
}

# Prints the probe's line; returns 0 when a CUDA device is present.
probe_device() {
  "$build_dir"/bin/reduce_probe
}

# Two-digit stage numbers that exist in stages/, sorted.
all_stages() {
  local dir
  for dir in stages/stage[0-9][0-9]_*/; do
    [[ -d $dir ]] || continue
    dir=${dir%/}
    echo "${dir:12:2}"
  done
}

stage_dir_name() {
  local dir
  for dir in stages/stage"$1"_*/; do
    [[ -d $dir ]] || continue  # an unmatched glob stays as literal text
    dir=${dir%/}
    echo "${dir#stages/}"
    return 0
  done
  return 1
}

# A stage that includes common/multi_gpu.h needs NCCL; once configured without it, says
# so in one line and exits 4 (cmake/nccl.cmake records whether it found NCCL).
require_nccl_for() {
  local dir
  dir=stages/$(stage_dir_name "$1") || return 0
  grep -q '#include "common/multi_gpu.h"' "$dir/todo.cu" || return 0
  if grep -q '^REDUCE_NCCL_FOUND:INTERNAL=OFF' "$build_dir/CMakeCache.txt" 2>/dev/null; then
    echo "stage $((10#$1)) needs NCCL (nccl.h and libnccl), which CMake did not find: install NCCL (e.g. apt install libnccl-dev) or set NCCL_ROOT, then configure again" >&2
    exit 4
  fi
}
