"""scripts/test.sh: configure, build and run the test suite through the CMake presets, then
one line per label, every failure in full and a closing count (course.test_summary)."""
import re
import subprocess
import sys
import time

from course import build, registry, test_summary
from course.cli import Stop, run_main

HELP = """Configures, builds and runs the test suite through the CMake presets.

  scripts/test.sh              what to run after a change: host tests and GPU tests of every
                               answer, no slow test (without a CUDA device the GPU tests are
                               reported as skipped, with the reason; the student edition has
                               no answers, so no answer tests)
  scripts/test.sh --full       the same plus the slow tests (grading a class, the partial
                               edition, the notebook): what CI and the instructor run
  scripts/test.sh --todo       the GPU tests against every template (they fail until the
                               TODO blocks are filled in)
  scripts/test.sh --todo 7     the same for stage 7's template only
  --verbose                    also print ctest's own output as it runs

Prints one line per test label (passed, failed, skipped and why), every failure in full
and a closing count; ctest's own output is kept in build/ctest.log either way.
REDUCE_BUILD_DIR=DIR uses a build in DIR instead of build/.
Exit code: ctest's (0 when every test that ran passed), 2 for bad arguments, 3 for --todo
without a CUDA device (built, nothing run)."""


def parse(argv):
    """(preset, stage number or None, verbose); None after --help."""
    preset, number, verbose = "default", None, False
    for word in argv:
        if word == "--todo":
            preset = "todo"
        elif word == "--full":
            preset = "full"
        elif word == "--verbose":
            verbose = True
        elif word in ("-h", "--help"):
            return None
        elif re.fullmatch(r"\d{1,2}", word):
            number = stage_number(word, preset)
        else:
            raise Stop(f"test.sh: error: unknown argument '{word}'; use --full, --todo [stage "
                       "number], --verbose or nothing", 2)
    return preset, number, verbose


def stage_number(word, preset):
    if preset != "todo":
        raise Stop("test.sh: error: a stage number goes after --todo, e.g. scripts/test.sh --todo 7", 2)
    return int(word)


# ctest's "  57/120 Test  #57: host.Options ...   Passed    0.02 sec".
DONE_LINE = re.compile(r"^\s*(\d+)/(\d+) Test\s+#")


def run_ctest(command, log, verbose):
    """ctest into `log`, and to the terminal too when verbose, else a count of the tests done
    every build.PROGRESS_EVERY_S seconds; returns its exit code."""
    started = last = time.monotonic()
    with open(log, "w", encoding="utf-8") as out:
        running = subprocess.Popen(command, cwd=build.ROOT, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, errors="replace")
        for line in running.stdout:
            out.write(line)
            if verbose:
                sys.stdout.write(line)
                sys.stdout.flush()
                continue
            done = DONE_LINE.match(line)
            now = time.monotonic()
            if done and now - last >= build.PROGRESS_EVERY_S:
                print(f"  tests: {done.group(1)}/{done.group(2)} done ({now - started:.0f} s)",
                      flush=True)
                last = now
        return running.wait()


def main(argv):
    parsed = parse(argv)
    if parsed is None:
        print(HELP)
        return 0
    preset, number, verbose = parsed
    started = time.monotonic()
    stages = build.registry("test.sh")
    stage = stages.stage(number, "test.sh") if number is not None else None
    if preset in ("default", "full") and stages.student_edition:
        print("Student edition (no answers/): host and harness tests only; test your templates "
              "with scripts/test.sh --todo or scripts/check.sh.")
    if stage is not None and not stage.built:
        raise Stop("test.sh: error: " + build.unbuilt_line(stage, "configure again"), 4)
    if stage is not None:  # one template: its targets and the probe, not the whole course
        build.configure_and_build([stage.target(registry.TEMPLATE),
                                   stage.target(registry.TEMPLATE_TESTS), "reduce_probe"])
    else:
        build.configure_and_build()
        if build.EXTRA_TARGETS.get(preset):
            build.configure_and_build(build.EXTRA_TARGETS[preset])
    found, device = build.probe()
    print(device)
    if not found and preset == "todo":
        # Every test of this selection needs a GPU: a run would skip them all and exit 0.
        raise Stop("test.sh: the templates' GPU tests need a CUDA device, so none ran (built "
                   "only); on a machine with a GPU run scripts/check.sh N", 3)
    if not found:
        print("The GPU tests will be reported as skipped: they need a CUDA device.")
    code = run_tests(preset, stage, verbose)
    print(f"scripts/test.sh took {time.monotonic() - started:.0f} s (configure, build and tests)")
    return code


def run_tests(preset, stage, verbose):
    log = build.build_dir() / "ctest.log"
    junit = build.build_dir() / "ctest-junit.xml"
    junit.unlink(missing_ok=True)
    selection = []
    if stage is not None:
        selection = ["-R", "^" + re.escape(stage.test_prefix(registry.TEMPLATE_TESTS)) + "\\."]
    shown = f" ({' '.join(selection)})" if selection else ""
    print(f"Running the {preset} tests{shown} in {build.build_name()} ...", flush=True)
    code = run_ctest(build.ctest_command(preset, selection + ["--output-junit", str(junit)]),
                     log, verbose)
    if junit.exists():
        test_summary.main([str(junit)])
    else:
        print("\n".join(log.read_text(errors="replace").splitlines()[-20:]))
    print(f"ctest's own output: {build.build_name()}/ctest.log")
    return code


if __name__ == "__main__":
    run_main(main, "test.sh")
