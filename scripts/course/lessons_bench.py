"""The lessons' own experiments, run by `scripts/bench.sh --lessons` (bench.py --lessons):
every answer at every block size, the lessons' variants (bench/experiments/variants and
stage 11's classic last warp) beside them, and stage 06 with and without its filter in a
debug (-G) build. Everything at n = 2^24, seed 12345, each timed run from a clean L2 (as
the benchmark), the median of 50 runs per process; three rounds, in turn, and the median
of the three. Writes docs/results/lessons.md and lessons.csv.

What is run comes from the stage registry (course.registry): each answer's target and file,
and its variants (Stage.variants(), the executables bench/experiments/CMakeLists.txt builds
from the patches, target lesson_variants).
"""
import statistics
import subprocess

from course import build, report
from course import registry as stage_registry
from course.cli import Stop
from course.gpu import ROOT, Progress, registry, write_csv

N = 1 << 24
ROUNDS = 3
REPEAT = 50
# The -G comparison: this stage's answer with and without its filter (the variant of that
# name), built a second time with device debug information.
DEBUG_STAGE = 6
DEBUG_VARIANT = "no_filter"


def swept(stages, build_dir=None):
    """[(target name, file)]: the answers of those Stages, then their variants by name. A
    variant of a stage the sweep leaves out (stage 05 times its copies, not blocks) is run
    by its own lesson's command."""
    answers = [(s.target(stage_registry.ANSWER), s.exe(build_dir=build_dir)) for s in stages]
    variants = sorted(v for s in stages for v in s.variants(build_dir).values())
    return answers + variants


def debug_pair(build_dir=None):
    """[(target name, file)] of the -G comparison, in `build_dir` (default: the main build)."""
    stage = registry().get(DEBUG_STAGE)
    variants = stage.variants(build_dir) if stage else {}
    if stage is None or DEBUG_VARIANT not in variants:
        raise RuntimeError(f"the registry has no stage {DEBUG_STAGE} with a variant "
                           f"'{DEBUG_VARIANT}' (bench/experiments/variants)")
    return [(stage.target(stage_registry.ANSWER), stage.exe(build_dir=build_dir)),
            variants[DEBUG_VARIANT]]


def run(path, block):
    """One process: its GPU time (ms), its GPU sum as printed, and whether it matched; a
    variant may also fail outright (stage 11's classic form reads past a 32-thread block's
    shared memory), and then the error is its result."""
    command = [str(path), "--n", str(N), "--block", str(block), "--repeat", str(REPEAT)]
    done = subprocess.run(command, capture_output=True, text=True)
    found = report.parse_report(done.stdout)
    if done.returncode not in (0, 1) or not found["gpu_ms"]:
        error = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[0]
        return {"gpu_ms": None, "gpu_sum": "", "cpu_sum": "", "match": False, "error": error}
    return {"gpu_ms": float(found["gpu_ms"]), "gpu_sum": found["gpu_value"],
            "cpu_sum": found["cpu_value"], "match": done.returncode == 0, "error": ""}


def debug_build():
    """A second build folder with -G (device debug info, no device optimisation) for the
    same GPUs as the main build (the registry's CUDA architectures); returns that folder."""
    reg = registry()
    if not reg.cuda_architectures:
        raise RuntimeError(f"{reg.path} lists no CUDA architectures for the -G build to use")
    folder = reg.build_dir / "debug-G"
    targets = [name for name, _ in debug_pair()]
    print(f"bench: building {' and '.join(targets)} with -G in {folder} ...", flush=True)
    steps = [["cmake", "-S", str(ROOT), "-B", str(folder), "-DCMAKE_BUILD_TYPE=Release",
              "-DCMAKE_CUDA_FLAGS=-G", *build.generator(folder),
              "-DCMAKE_CUDA_ARCHITECTURES=" + ";".join(reg.cuda_architectures)],
             ["cmake", "--build", str(folder), "-j", "8", "--target", *targets]]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(step)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return folder


def measure(stages, blocks, block):
    """Every round: each of `stages` (and their variants) at every block size, then the -G
    pair at `block`. One progress line per executable."""
    release = swept(stages)
    absent = [name for name, path in release if not path.exists()]
    if absent:
        raise Stop(f"bench.py: error: {', '.join(absent)} not built; run scripts/bench.sh "
                   "--lessons (it builds the variants, target lesson_variants)", 1)
    debug = debug_pair(debug_build())
    progress = Progress("bench", "runs")
    progress.plan(ROUNDS * (len(release) * len(blocks) + len(debug)))
    rows = []
    for round_ in range(1, ROUNDS + 1):
        for name, path in release:
            for size in blocks:
                rows.append({"round": round_, "build": "release", "executable": name,
                             "block": size, **run(path, size)})
            progress.step(len(blocks), note=f" (round {round_} of {ROUNDS}, {name})")
        for name, path in debug:
            rows.append({"round": round_, "build": "-G", "executable": name, "block": block,
                         **run(path, block)})
        progress.step(len(debug), note=f" (round {round_} of {ROUNDS}, the -G build)")
    return rows


def median_ms(rows, build, name, block):
    """The median over the rounds as text; 'error' if any round failed to run."""
    times = [r["gpu_ms"] for r in rows
             if (r["build"], r["executable"], r["block"]) == (build, name, block)]
    return "error" if None in times else f"{statistics.median(times):.4f}"


def all_match(rows, name):
    return all(r["match"] for r in rows if r["executable"] == name and r["build"] == "release")


def sweep_table(rows, names, blocks):
    lines = ["| executable | " + " | ".join(str(b) for b in blocks) + " | every run matched |",
             "|---|" + "---|" * (len(blocks) + 1)]
    for name in names:
        cells = [median_ms(rows, "release", name, b) for b in blocks]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {'yes' if all_match(rows, name) else 'no'} |")
    return "\n".join(lines)


def sums_table(rows, block, names):
    lines = ["| build | executable | GPU time, median (ms) | GPU sum, round 1 / 2 / 3 | matches |",
             "|---|---|---|---|---|"]
    for build in ("release", "-G"):
        for name in names:
            picked = [r for r in rows if (r["build"], r["executable"], r["block"]) == (build, name, block)]
            sums = " / ".join(f"{float(r['gpu_sum']):.1f}" for r in picked)
            matches = sum(r["match"] for r in picked)
            lines.append(f"| {build} | {name} | {median_ms(rows, build, name, block)} | {sums} | "
                         f"{matches} of {len(picked)} |")
    return "\n".join(lines)


def error_lines(rows):
    seen = {}
    for r in rows:
        if r["error"]:
            seen.setdefault((r["build"], r["executable"], r["block"]), r["error"])
    return "\n".join(f"- {name} ({build}), block {block}: {error}"
                     for (build, name, block), error in seen.items()) or "None."


def write(rows, stages, blocks, block, meta, out):
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "lessons.csv", rows, list(rows[0].keys()))
    cpu = next(r["cpu_sum"] for r in rows if r["cpu_sum"])
    (out / "lessons.md").write_text(f"""# The lessons' experiments

Written by `scripts/bench.sh --lessons` (do not edit by hand; [the script](../../scripts/course/lessons_bench.py)).
n = 2^24 (64 MiB), input seed {meta['seed']} (CPU sum {cpu}). Each process times its
launches with CUDA events after a warm-up, every timed run starting from a clean L2 (as in
the [benchmark](README.md)), and reports the median of {REPEAT} runs; every executable ran
{ROUNDS} times, in turn with all the others, and the tables give the median of those
{ROUNDS}. Every result was verified after timing.

- Device: {meta['device']}
- Driver: {meta['driver']}
- CUDA: {meta['cuda']}
- Date: {meta['date']}
- Commit: {meta['commit']}

## Block size

GPU time in ms, `build/bin/stageNN --block B` (the answers) and `build/bin/variants/variantNN_*`
(the lessons' variants: patches in [bench/experiments/variants](../../bench/experiments/variants) and
stage 11's classic last warp from [tests/mistakes](../../tests/mistakes/stage11_unroll_last_warp/classic_volatile.patch)).

{sweep_table(rows, [name for name, _ in swept(stages)], blocks)}

Runs that failed (first line of the error):

{error_lines(rows)}

## Stage {DEBUG_STAGE:02d} without its filter, and the debug build

Block {block}. `-G` is the same source built with `-DCMAKE_CUDA_FLAGS=-G` (device debug
information, device optimisation off) in `build/debug-G`.

{sums_table(rows, block, [name for name, _ in debug_pair()])}
""")


def run_lessons(stages, meta, out):
    """stages: {Stage: its --describe}, the answers to sweep over every block size they
    accept (the first one's list: every stage takes the same sizes); the -G pair runs at
    the first one's default block (its --describe's default_block, the benchmark's)."""
    first = next(iter(stages.values()))
    blocks, block = first["blocks"], first["default_block"]
    rows = measure(list(stages), blocks, block)
    write(rows, list(stages), blocks, block, meta, out)
    print((out / "lessons.md").read_text())
    answers = {s.target(stage_registry.ANSWER) for s in stages}
    return 0 if all(r["match"] for r in rows if r["executable"] in answers) else 1
