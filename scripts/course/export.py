"""Writes the student edition of the course into DIR: everything a student needs, nothing
that gives a solution away (answers/, with answers/shared/ the finished code common/ and
bench/ use where it exists, the known-wrong corpus tests/mistakes/ whose patches are
written against the answers, the instructor's scripts/gpu_check.sh and grader
(scripts/grade.sh, scripts/course/grade/ and its tests), bench/experiments/ which holds
stage 14's techniques) and no build output, whatever the build folder's name.

  scripts/export_student.sh DIR                  DIR must not exist or be empty
  scripts/export_student.sh --stages 6-10 DIR    only stages 6 to 10 (or one: --stages 7):
                                                 no later stage's folder at all

stages/gifts.txt lists where a shipped file gives an earlier stage's solution on purpose;
a partial edition keeps only the gifts between the stages it has.

The edition configures and builds on its own: CMakeLists.txt sees that answers/ is missing
and builds the templates and their tests only. It keeps each template as shipped in
.course/templates/, which the student check compares the student's file with outside the
TODO blocks. The instructors' first run and template maker, which start from the answers,
stay behind.
Exit code: 0 written, 2 bad arguments or a DIR that is not empty."""
import os
import pathlib
import re
import shutil
import subprocess

from course import build, registry
from course.cli import Stop, run_main

ROOT = registry.ROOT
USAGE = "scripts/export_student.sh [--stages N or A-B] DIR"
GIFT = re.compile(r"^([0-9]{2}|[A-Za-z0-9_./-]+) gives ([0-9]{2}): .+")


def fail(message):
    raise Stop(f"export_student.sh: error: {message}", 2)


def withheld(path):
    """Paths that hold or reveal a solution, or need one. Stage 14's techniques one at a
    time (bench/experiments/) end in stage 14's solution; the grader grades with answers/
    and tests/mistakes/; the figures' generator computes every stage's indices as its answer
    does (the edition ships the drawn figures, not the formulas)."""
    return (path.startswith(("answers/", "tests/mistakes/", "bench/experiments/",
                             "scripts/course/grade/", "tests/host/grade_", "tests/grade/",
                             "scripts/course/figures/"))
            or path in ("scripts/gpu_check.sh", "scripts/grade.sh", "scripts/figures.sh",
                        "scripts/requirements-figures.txt", "tests/host/figures_test.py",
                        "scripts/setup_grader.sh", "scripts/requirements-grader.txt",
                        # the instructors' tools that start from the answers
                        "scripts/first_run.sh", "scripts/make_template.sh",
                        "scripts/course/make_template.py"))


def parse_range(text):
    """'7' or '6-10' -> (first, last)."""
    found = re.fullmatch(r"([0-9]{1,2})(?:-([0-9]{1,2}))?", text)
    if not found:
        fail(f"--stages takes a stage or a range such as 6-10, not '{text}'")
    first = int(found.group(1))
    last = int(found.group(2) or first)
    if first > last:
        fail(f"--stages {text}: the range's first stage is after its last")
    return first, last


def parse(argv):
    """(first, last, dest) from the command line."""
    first, last = 0, 99
    if argv and argv[0] == "--stages":
        if len(argv) < 2:
            fail(f"--stages needs a stage or a range, e.g. --stages 6-10: {USAGE}")
        first, last = parse_range(argv[1])
        argv = argv[2:]
    if len(argv) != 1 or not argv[0]:
        fail(f"give one target folder: {USAGE}")
    dest = argv[0]
    if dest.startswith("-"):
        fail(f"the target folder is a path, not an option: '{dest}'")
    target = pathlib.Path(dest)
    if target.exists():
        if not target.is_dir():
            fail(f"'{dest}' exists and is not a folder")
        if any(target.iterdir()):
            fail(f"'{dest}' is not empty; give a new or empty folder")
    return first, last, target


def is_git_checkout():
    """True when ROOT is the top of a git checkout (an ignored copy inside another checkout,
    such as an earlier export under build-*/, is not one)."""
    if shutil.which("git") is None:
        return False
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--show-toplevel"],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return False
    return pathlib.Path(done.stdout.strip()).resolve() == ROOT.resolve()


def list_files():
    """Every file of the course relative to ROOT. Git's own list honours .gitignore, so build
    outputs stay behind; outside git only the build folders are known."""
    if is_git_checkout():
        done = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others",
                               "--exclude-standard"], capture_output=True, check=True)
        return [p for p in done.stdout.decode().split("\0") if p]
    found = []
    for top, dirs, files in os.walk(ROOT):
        rel_top = pathlib.Path(top).relative_to(ROOT)
        if rel_top == pathlib.Path("."):
            dirs[:] = [d for d in dirs if d not in (".git", "build") and not d.startswith("build-")]
        found += [(rel_top / f).as_posix() for f in files]
    return found


def build_dirs():
    """Build folders wherever they are (cmake -B out puts one outside .gitignore), known by
    the CMakeCache.txt every CMake build folder holds; they carry copies of the answers."""
    found = []
    for top, dirs, files in os.walk(ROOT):
        if pathlib.Path(top) == ROOT and ".git" in dirs:
            dirs.remove(".git")
        if "CMakeCache.txt" in files:
            found.append(pathlib.Path(top).relative_to(ROOT).as_posix() + "/")
    return found


def kept_gifts(released):
    """stages/gifts.txt: `<later stage or path> gives <stage>: <reason>`, checked here so that
    a malformed line stops the export rather than a test; the lines between released stages."""
    gifts = ROOT / "stages" / "gifts.txt"
    if not gifts.is_file():
        return None
    kept = []
    for number, line in enumerate(gifts.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            kept.append(line)
            continue
        found = GIFT.match(line)
        if not found:
            fail(f"stages/gifts.txt line {number} is not "
                 "'<later stage or path> gives <stage>: <reason>'")
        giver, given = found.groups()
        if int(given) not in released:
            continue
        if re.fullmatch(r"[0-9]{2}", giver) and int(giver) not in released:
            continue
        kept.append(line)
    return kept


def chosen_files(released, folders):
    """The course's files that go to the edition. A stage folder outside the range is left
    out whole (its template may give the released stages' solutions). `folders` maps each
    stage's folder to its number (the registry)."""
    builds = build_dirs()
    left_out = tuple(f"stages/{folder}/" for folder, n in folders.items() if n not in released)
    chosen = []
    for path in list_files():
        if withheld(path) or path.startswith(left_out):
            continue
        if any(path.startswith(b) for b in builds if b != "./"):
            continue
        if (ROOT / path).exists() or (ROOT / path).is_symlink():
            chosen.append(path)
    return chosen


def copy(paths, dest):
    """Keeps modes (scripts stay executable) and symbolic links as they are."""
    for path in paths:
        source, target = ROOT / path, dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            os.symlink(os.readlink(source), target)
        else:
            shutil.copy2(source, target)


def write_edition(first, last, dest):
    """The edition of stages first..last into dest (a new or empty folder); returns how many
    files it holds. A Stop with exit code 2 says why not."""
    folders = {s.folder: s.number for s in build.registry("export_student.sh").stages}
    released = {n for n in folders.values() if first <= n <= last}
    if not released:
        fail(f"no stage folder in stages/ is in --stages {first}-{last}")
    gifts = kept_gifts(released)
    # The list is taken before DIR gets anything, so a DIR inside the course is not copied
    # into itself.
    paths = chosen_files(released, folders)
    if not paths:
        fail(f"found no files to export in {ROOT}")
    dest.mkdir(parents=True, exist_ok=True)
    copy(paths, dest)
    if gifts is not None:
        (dest / "stages" / "gifts.txt").write_text("".join(line + "\n" for line in gifts))
    keep_shipped_templates(dest, [f for f, n in folders.items() if n in released])
    return len(paths)


def keep_shipped_templates(dest, folders):
    """A copy of each released template as shipped, which the student check compares the
    student's file with outside the TODO blocks (the grader refuses any change there)."""
    for folder in folders:
        source = ROOT / "stages" / folder / "todo.cu"
        if source.is_file():
            target = dest / registry.SHIPPED_TEMPLATES / folder / "todo.cu"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def main(argv):
    first, last, dest = parse(argv)
    count = write_edition(first, last, dest)
    print(f"Student edition written to {dest} ({count} files, no answers); there, run "
          "scripts/check.sh to see where each stage stands.")
    return 0


if __name__ == "__main__":
    run_main(main, "export_student.sh")
