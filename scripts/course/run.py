"""scripts/run.sh: build the chosen stages, run each, print its report and then one line
per stage. The help text below is what `scripts/run.sh --help` prints."""
import re
import subprocess

from course import build, registry, report
from course.cli import Stop, run_main

HELP = """Builds the course, runs stages and prints each report, then a one-line-per-stage summary.

  scripts/run.sh                     every stage's answer (the student edition: template)
  scripts/run.sh 7 8                 stages 7 and 8
  scripts/run.sh --todo 7            your template for stage 7 (stages/stage07_*/todo.cu)
  scripts/run.sh 8 -- --n 1048576 --block 128    options after -- go to each stage

Exit code: 0 every stage matched, 1 some stage did not, 2 bad arguments,
3 no CUDA device (everything was built, nothing ran), 4 build or CUDA error."""

ROW = "{:<26} {:<10} {:>12} {:>10}"


def parse(argv):
    """(template?, stage numbers, options for the stages); None after --help."""
    template, numbers, options = False, [], []
    for at, word in enumerate(argv):
        if word == "--todo":
            template = True
        elif word in ("-h", "--help"):
            return None
        elif word == "--":
            options = argv[at + 1:]
            break
        elif re.fullmatch(r"\d{1,2}", word):
            numbers.append(int(word))
        else:
            raise Stop(f"run.sh: error: unknown argument '{word}'; give stage numbers (e.g. 7 8), "
                       "--todo, or -- and stage options", 2)
    return template, numbers, options


def result_word(code):
    return {0: "match", 1: "MISMATCH"}.get(code, f"error (exit {code})")


def run_stage(stage, template, options):
    """Runs one stage (the registry's), prints its report; returns (exit code, its summary
    line)."""
    exe = stage.exe(template)
    shown = f"{build.build_name()}/{exe.relative_to(build.build_dir())}"
    print(f"\n=== {stage.folder}{' (your template)' if template else ''}: {shown} "
          f"{' '.join(options)} ===", flush=True)
    done = subprocess.run([str(exe), *options], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors="replace")
    print(done.stdout.rstrip("\n"), flush=True)
    found = report.parse_report(done.stdout)
    line = ROW.format(stage.folder + ("_todo" if template else ""),
                      result_word(done.returncode), found["gpu_ms"] or "-", found["gbps"] or "-")
    return done.returncode, line


def main(argv):
    parsed = parse(argv)
    if parsed is None:
        print(HELP)
        return 0
    template, numbers, options = parsed
    stages = build.registry("run.sh")
    if not template and stages.student_edition:
        print("Student edition (no answers/): running your templates, as with --todo.")
        template = True
    chosen = [stages.stage(n, "run.sh") for n in numbers] if numbers else stages.stages
    role = registry.TEMPLATE if template else registry.ANSWER
    # Only what runs: the chosen stages' executables and the device probe.
    build.configure_and_build(["reduce_probe"] + [s.target(role) for s in chosen])
    found, device = build.probe()
    if not found:
        print(f"{device}: the stages were built but not run.")
        return 3
    print(device)
    codes, lines = zip(*(run_stage(s, template, options) for s in chosen))
    print(f"\nSummary ({device})")
    print(ROW.format("stage", "result", "GPU time ms", "GB/s"))
    print("\n".join(lines))
    return max(codes)


if __name__ == "__main__":
    run_main(main, "run.sh")
