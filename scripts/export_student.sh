#!/usr/bin/env bash
# Writes the student edition of the course into DIR: everything a student needs, nothing
# that gives a solution away (answers/, with answers/shared/ the finished code common/ and
# bench/ use where it exists, the known-wrong corpus tests/mistakes/ whose patches are
# written against the answers, the instructor's scripts/gpu_check.sh and grader
# (scripts/grade.sh, scripts/course/grade/), bench/experiments/
# which holds stage 14's techniques) and no build output, whatever the build folder's name.
#
#   scripts/export_student.sh DIR                  DIR must not exist or be empty
#   scripts/export_student.sh --stages 6-10 DIR    only stages 6 to 10 (or one: --stages 7):
#                                                  no later stage's folder at all
#
# stages/gifts.txt lists where a shipped file gives an earlier stage's solution on purpose;
# a partial edition keeps only the gifts between the stages it has.
#
# The edition configures and builds on its own: CMakeLists.txt sees that answers/ is
# missing and builds the templates and their tests only.
# Exit code: 0 written, 2 bad arguments or a DIR that is not empty.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

fail() { echo "export_student.sh: error: $1" >&2; exit 2; }

# Paths that hold or reveal a solution, or need one; matched against paths relative to root.
withheld() {
  case $1 in
    answers/* | tests/mistakes/* | scripts/gpu_check.sh) return 0 ;;
    # The instructors' grader and its tests: they grade with answers/ and tests/mistakes/.
    scripts/grade.sh | scripts/course/grade/* | tests/host/grade_* | tests/grade/*) return 0 ;;
    # Stage 14's techniques one at a time: its last rows are stage 14's solution.
    bench/experiments/*) return 0 ;;
    *) return 1 ;;
  esac
}

is_git_checkout() {
  command -v git >/dev/null || return 1
  local top
  top=$(git -C "$root" rev-parse --show-toplevel 2>/dev/null) || return 1
  # An ignored copy inside another checkout (an earlier export under build-*/) is not one.
  [[ $(cd "$top" && pwd -P) == $(cd "$root" && pwd -P) ]]
}

# Every file of the course, NUL-separated, relative to root. Git's own list honours
# .gitignore, so build outputs stay behind; outside git only the build folders are known.
list_files() {
  if is_git_checkout; then
    git -C "$root" ls-files -z --cached --others --exclude-standard
  else
    (cd "$root" && find . \( -path ./.git -o -path ./build -o -path './build-*' \) -prune \
       -o \( -type f -o -type l \) -printf '%P\0')
  fi
}

usage="scripts/export_student.sh [--stages N or A-B] DIR"
first_stage=0
last_stage=99
if [[ $# -ge 1 && $1 == --stages ]]; then
  [[ $# -ge 2 ]] || fail "--stages needs a stage or a range, e.g. --stages 6-10: $usage"
  if [[ $2 =~ ^([0-9]{1,2})$ ]]; then
    first_stage=$((10#${BASH_REMATCH[1]}))
    last_stage=$first_stage
  elif [[ $2 =~ ^([0-9]{1,2})-([0-9]{1,2})$ ]]; then
    first_stage=$((10#${BASH_REMATCH[1]}))
    last_stage=$((10#${BASH_REMATCH[2]}))
  else
    fail "--stages takes a stage or a range such as 6-10, not '$2'"
  fi
  ((first_stage <= last_stage)) || fail "--stages $2: the range's first stage is after its last"
  shift 2
fi
[[ $# -eq 1 && -n $1 ]] || fail "give one target folder: $usage"
dest=$1
[[ $dest == -* ]] && fail "the target folder is a path, not an option: '$dest'"
if [[ -e $dest ]]; then
  [[ -d $dest ]] || fail "'$dest' exists and is not a folder"
  [[ -z $(ls -A "$dest") ]] || fail "'$dest' is not empty; give a new or empty folder"
fi

# The stages released: their numbers, from the folders in the range.
released=()
for stage_dir in "$root"/stages/stage[0-9][0-9]_*/; do
  number=$(basename "$stage_dir"); number=$((10#${number:5:2}))
  ((number >= first_stage && number <= last_stage)) && released+=("$number")
done
[[ ${#released[@]} -gt 0 ]] || fail "no stage folder in stages/ is in --stages $first_stage-$last_stage"
is_released() {
  local number
  for number in "${released[@]}"; do [[ $number -eq $((10#$1)) ]] && return 0; done
  return 1
}
# A stage folder outside the range is left out whole (its template may give the released
# stages' solutions).
outside_range() {
  [[ $1 =~ ^stages/stage([0-9][0-9])_[^/]*/ ]] || return 1
  ! is_released "${BASH_REMATCH[1]}"
}

# stages/gifts.txt: `<later stage or path> gives <stage>: <reason>`. Checked here, so that a
# malformed line stops the export rather than a test; kept lines go to the edition.
gifts_kept=()
if [[ -f $root/stages/gifts.txt ]]; then
  line_number=0
  while IFS= read -r line || [[ -n $line ]]; do
    line_number=$((line_number + 1))
    if [[ -z ${line//[[:space:]]/} || $line == \#* ]]; then gifts_kept+=("$line"); continue; fi
    [[ $line =~ ^([0-9]{2}|[A-Za-z0-9_./-]+)\ gives\ ([0-9]{2}):\ .+ ]] ||
      fail "stages/gifts.txt line $line_number is not '<later stage or path> gives <stage>: <reason>'"
    giver=${BASH_REMATCH[1]}
    given=${BASH_REMATCH[2]}
    is_released "$given" || continue
    if [[ $giver =~ ^[0-9]{2}$ ]]; then is_released "$giver" || continue; fi
    gifts_kept+=("$line")
  done <"$root/stages/gifts.txt"
fi

# Build folders wherever they are (cmake -B out puts one outside .gitignore), known by the
# CMakeCache.txt every CMake build folder holds; they carry copies of the answers.
build_dirs=()
while IFS= read -r -d '' cache; do
  [[ $cache == */CMakeCache.txt ]] && build_dirs+=("${cache%CMakeCache.txt}")
done < <(cd "$root" && find . -path ./.git -prune -o -name CMakeCache.txt -type f -printf '%P\0')

in_build_dir() {
  local dir
  for dir in "${build_dirs[@]}"; do [[ $1 == "$dir"* ]] && return 0; done
  return 1
}

# The list is taken before DIR gets anything, so a DIR inside the course is not copied into
# itself. A path git still lists but that was deleted on disk is skipped.
files=()
while IFS= read -r -d '' path; do
  withheld "$path" && continue
  outside_range "$path" && continue
  in_build_dir "$path" && continue
  [[ -e $root/$path || -L $root/$path ]] || continue
  files+=("$path")
done < <(list_files)
[[ ${#files[@]} -gt 0 ]] || fail "found no files to export in $root"

mkdir -p "$dest"
# tar keeps modes (scripts stay executable) and symbolic links as they are.
printf '%s\0' "${files[@]}" |
  tar -C "$root" --null --no-recursion -T - -cf - | tar -C "$dest" -xf -

[[ -f $root/stages/gifts.txt ]] && printf '%s\n' "${gifts_kept[@]}" >"$dest/stages/gifts.txt"

echo "Student edition written to $dest (${#files[@]} files, no answers); there, run scripts/check.sh to see where each stage stands."
