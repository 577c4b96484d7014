"""The lessons' own experiments, run by `scripts/bench.sh --lessons` (bench.py --lessons):
every answer at every block size, the lessons' variants (bench/experiments/variants and
stage 11's classic last warp) beside them, and stage 06 with and without its filter in a
debug (-G) build. Everything at n = 2^24, seed 12345, each timed run from a clean L2 (as
the benchmark), the median of 50 runs per process; three rounds, in turn, and the median
of the three. Writes docs/results/lessons.md and lessons.csv.
"""
import re
import statistics
import subprocess

from course import report
from course.gpu import BIN, ROOT, write_csv

N = 1 << 24
ROUNDS = 3
REPEAT = 50
# The executables bench/experiments/CMakeLists.txt builds from the same patches.
VARIANT_PATCHES = sorted(ROOT.glob("bench/experiments/variants/stage[0-9][0-9]_*/*.patch")) + [
    ROOT / "tests/mistakes/stage11_unroll_last_warp/classic_volatile.patch"]
VARIANTS = sorted(f"variant{p.parent.name[5:7]}_{p.stem}" for p in VARIANT_PATCHES)


def swept(stages):
    """The answers and the variants of those stages: a variant of a stage the sweep leaves
    out (stage 20 times its copies, not blocks) is run by its own lesson's command."""
    return list(stages) + [v for v in VARIANTS if f"stage{v[7:9]}" in stages]


DEBUG_TARGETS = ["stage06", "variant06_no_filter"]


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
    """A second build folder with -G (device debug info, no device optimisation) for
    the same GPUs as the main build; returns its bin/ folder."""
    cache = (BIN.parent / "CMakeCache.txt").read_text()
    archs = re.search(r"^CMAKE_CUDA_ARCHITECTURES:\w+=(.*)$", cache, re.M).group(1)
    folder = BIN.parent / "debug-G"
    steps = [["cmake", "-S", str(ROOT), "-B", str(folder), "-DCMAKE_BUILD_TYPE=Release",
              "-DCMAKE_CUDA_FLAGS=-G", f"-DCMAKE_CUDA_ARCHITECTURES={archs}"],
             ["cmake", "--build", str(folder), "-j", "8", "--target", *DEBUG_TARGETS]]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(step)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return folder / "bin"


def executable(bin_dir, name):
    return bin_dir / ("variants" if name.startswith("variant") else "") / name


def measure(stages, blocks):
    debug_bin = debug_build()
    rows = []
    for round_ in range(1, ROUNDS + 1):
        for name in swept(stages):
            for block in blocks:
                rows.append({"round": round_, "build": "release", "executable": name,
                             "block": block, **run(executable(BIN, name), block)})
        for name in DEBUG_TARGETS:
            block = middle(blocks)
            rows.append({"round": round_, "build": "-G", "executable": name, "block": block,
                         **run(executable(debug_bin, name), block)})
        print(f"  round {round_} of {ROUNDS} done", flush=True)
    return rows


def middle(blocks):
    """The block of the -G comparison: the middle size, the benchmark's (256)."""
    return blocks[len(blocks) // 2]


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


def sums_table(rows, block):
    lines = ["| build | executable | GPU time, median (ms) | GPU sum, round 1 / 2 / 3 | matches |",
             "|---|---|---|---|---|"]
    for build in ("release", "-G"):
        for name in DEBUG_TARGETS:
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


def write(rows, stages, blocks, meta, out):
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
(the lessons' variants: patches in [bench/experiments/variants](../experiments/variants) and
stage 11's classic last warp from [tests/mistakes](../../tests/mistakes/stage11_unroll_last_warp/classic_volatile.patch)).

{sweep_table(rows, swept(stages), blocks)}

Runs that failed (first line of the error):

{error_lines(rows)}

## Stage 06 without its filter, and the debug build

Block {middle(blocks)}. `-G` is the same source built with `-DCMAKE_CUDA_FLAGS=-G` (device debug
information, device optimisation off) in `build/debug-G`.

{sums_table(rows, middle(blocks))}
""")


def run_lessons(stages, meta, out):
    """stages: {'stage07': its --describe, ...}, the answers to sweep over every block size
    they accept (the first one's list: every stage takes the same sizes)."""
    blocks = next(iter(stages.values()))["blocks"]
    rows = measure(stages, blocks)
    write(rows, stages, blocks, meta, out)
    print((out / "lessons.md").read_text())
    return 0 if all(r["match"] for r in rows if r["executable"].startswith("stage")) else 1
