# Shared by run.sh and test.sh: configure and build once, quietly unless something fails.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

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

configure_and_build() {
  echo "Configuring and building (cmake --preset default; cmake --build --preset default) ..."
  quietly cmake --preset default
  quietly cmake --build --preset default
}

# The student edition (scripts/export_student.sh) ships without answers/, so only the
# templates are built and tested.
student_edition() {
  [[ ! -d answers ]]
}

# Prints the probe's line; returns 0 when a CUDA device is present.
probe_device() {
  build/bin/reduce_probe
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
