"""scripts/gpu_check.sh, the instructor's check on a machine with a GPU, in one go:
  1. the whole test suite (host and GPU, the slow tests included: the full preset),
  2. the todo suite, which must fail cleanly while the templates are unfilled
     (test failures only: no crash, no time-out),
  3. every answer's report and the summary (scripts/run.sh),
  4. the student check (course.check) on every answer: its GPU tests and
     compute-sanitizer memcheck, racecheck, synccheck and initcheck at edge-case sizes,
     a racecheck warning counting as a failure,
  5. the known-wrong corpus (ctest --preset mistakes): the check must fail every entry
     with the entry's hint and pass every answer built the way a student's file is.
Prints one verdict line per step, with the step's time, and exits non-zero if any step fails.
"""
import re
import subprocess
import sys
import time

from course import build
from course.cli import run_main

CRASH = re.compile(r"Exception|SEGFAULT|Timeout|Child aborted")


class Verdicts:
    """One line per step; each step's time runs from the previous line (a GPU runner's
    budget is planned from them)."""

    def __init__(self):
        self.failures, self.since = 0, time.monotonic()

    def add(self, name, ok):
        now = time.monotonic()
        print(f"{'PASS' if ok else 'FAIL'}  {name} ({now - self.since:.0f} s)", flush=True)
        self.failures += not ok
        self.since = now


def logged(command, name):
    """Runs command with its output into build/gpu_check_<name>.log; (exit code, text)."""
    log = build.build_dir() / f"gpu_check_{name}.log"
    with open(log, "w", encoding="utf-8") as out:
        code = subprocess.run(command, cwd=build.ROOT, stdout=out,
                              stderr=subprocess.STDOUT).returncode
    return code, log.read_text(encoding="utf-8", errors="replace")


def tests_passed(text):
    """ctest's closing line, '100% tests passed, 0 tests failed out of 166'."""
    return next((line for line in text.splitlines() if "tests passed" in line), "")


def check_answers(verdicts):
    code, text = logged([sys.executable, "-m", "course.check", "--answers", "--build-dir",
                         str(build.build_dir()), "--jobs", "8"], "answers")
    lines = [line for line in text.splitlines() if re.match(r"^(---|✅|❌)", line)]
    if lines:
        print("\n".join(lines))
    passed = sum(line.startswith("✅") for line in lines)
    failed = sum(line.startswith("❌") for line in lines)
    verdicts.add(f"student check on every answer: {passed} checks passed, {failed} failed",
                 code == 0)


def main(argv):
    build.configure_and_build()
    # The templates' suites and the corpus are not in the default build.
    build.configure_and_build([t for preset in ("todo", "mistakes") for t in build.EXTRA_TARGETS[preset]])
    found, device = build.probe()
    print(device)
    if not found:
        return 3
    verdicts = Verdicts()
    code, text = logged(build.ctest_command("full"), "tests")
    verdicts.add(f"test suite: {tests_passed(text)}", code == 0)
    code, text = logged(build.ctest_command("todo"), "todo")
    crashes = sum(bool(CRASH.search(line)) for line in text.splitlines())
    verdicts.add(f"todo suite fails cleanly: {tests_passed(text)}, {crashes} crashes",
                 code != 0 and crashes == 0)
    code, run_text = logged([sys.executable, "-m", "course.run"], "run")
    verdicts.add("every answer matches (scripts/run.sh)", code == 0)
    check_answers(verdicts)
    code, text = logged(build.ctest_command("mistakes"), "mistakes")
    verdicts.add(f"known-wrong corpus: {tests_passed(text)}", code == 0)
    lines = run_text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("Summary")), len(lines))
    if lines[start:]:
        print("\n".join(lines[start:]))
    return 1 if verdicts.failures else 0


if __name__ == "__main__":
    run_main(main, "gpu_check.sh")
