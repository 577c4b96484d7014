"""scripts/test.sh: configure, build and run the test suite through the CMake presets, then
one line per label, every failure in full and a closing count (course.test_summary)."""
import re
import subprocess
import sys

from course import build, stages, test_summary
from course.cli import Stop, run_main

HELP = """Configures, builds and runs the test suite through the CMake presets.

  scripts/test.sh              host tests and GPU tests of every answer (without a CUDA
                               device the GPU tests are reported as skipped, with the reason;
                               the student edition has no answers, so no answer tests)
  scripts/test.sh --todo       the GPU tests against every template (they fail until the
                               TODO blocks are filled in)
  scripts/test.sh --todo 7     the same for stage 7's template only
  --verbose                    also print ctest's own output as it runs

Prints one line per test label (passed, failed, skipped and why), every failure in full
and a closing count; ctest's own output is kept in build/ctest.log either way.
REDUCE_BUILD_DIR=DIR uses a build in DIR instead of build/.
Exit code: ctest's (0 when every test that ran passed), 2 for bad arguments."""


def parse(argv):
    """(preset, stage number or None, verbose); None after --help."""
    preset, number, verbose = "default", None, False
    for word in argv:
        if word == "--todo":
            preset = "todo"
        elif word == "--verbose":
            verbose = True
        elif word in ("-h", "--help"):
            return None
        elif re.fullmatch(r"\d{1,2}", word):
            number = stage_number(word, preset)
        else:
            raise Stop(f"test.sh: error: unknown argument '{word}'; use --todo [stage number], "
                       "--verbose or nothing", 2)
    return preset, number, verbose


def stage_number(word, preset):
    if preset != "todo":
        raise Stop("test.sh: error: a stage number goes after --todo, e.g. scripts/test.sh --todo 7", 2)
    if stages.folder(int(word)) is None:
        raise Stop(f"test.sh: error: there is no stage {int(word)}; the stages are: "
                   f"{stages.listing()} ", 2)
    return int(word)


def run_ctest(command, log, verbose):
    """ctest into `log`, and to the terminal too when verbose; returns its exit code."""
    with open(log, "w", encoding="utf-8") as out:
        if not verbose:
            return subprocess.run(command, cwd=build.ROOT, stdout=out,
                                  stderr=subprocess.STDOUT).returncode
        running = subprocess.Popen(command, cwd=build.ROOT, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, errors="replace")
        for line in running.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            out.write(line)
        return running.wait()


def main(argv):
    parsed = parse(argv)
    if parsed is None:
        print(HELP)
        return 0
    preset, number, verbose = parsed
    if preset == "default" and stages.student_edition():
        print("Student edition (no answers/): host and harness tests only; test your templates "
              "with scripts/test.sh --todo or scripts/check.sh.")
    build.configure_and_build()
    exe = build.bin_dir() / f"stage{number:02d}_todo" if number is not None else None
    if exe is not None and build.needs_nccl(exe):
        raise Stop(build.nccl_line(number, "configure again"), 4)
    found, device = build.probe()
    print(device)
    if not found:
        print("The GPU tests will be reported as skipped: they need a CUDA device.")
    return run_tests(preset, number, verbose)


def run_tests(preset, number, verbose):
    log = build.build_dir() / "ctest.log"
    junit = build.build_dir() / "ctest-junit.xml"
    junit.unlink(missing_ok=True)
    selection = ["-R", f"^stage{number:02d}_todo\\."] if number is not None else []
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
