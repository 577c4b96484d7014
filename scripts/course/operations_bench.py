"""Max, softmax and layer norm (stages 15 to 17) against their floors, run by
`scripts/bench.sh --operations` (bench.py --operations).

Stage 15 reads n floats once, like the sums: its floor is the benchmark's (empty launch +
4n bytes / read ceiling, from bench_launch and bench_read at the same sizes) and its
yardstick is CUB's cub::DeviceReduce::Max (bench_cub_max). Stages 16 and 17 read a matrix
once and write one of the same shape: their floor is bench_copy, a device-to-device copy
of the same number of floats. Every version at every block size, the shapes the lessons
use, each run from a clean L2, the median of its timed runs, every result verified after
timing. Each row version also runs once on rows of 10^4 plus noise (--offset 10000): a
version that fails there is marked and left out of "best". Writes docs/results/
operations.md and operations.csv.
"""
from course import describe
from course import registry as stage_registry
from course.gpu import Progress, floor_model, run_csv, write_csv

MAX_SIZES = [1 << k for k in (16, 20, 24, 28, 30)]
MAX_MAIN_N = 1 << 24
SHAPES = [(16384, 1024), (131072, 128), (512, 32768), (128, 131072)]
ROW_REPEAT = 20
OFFSET_PROBE = ["--rows", 256, "--cols", 1024, "--offset", 10000, "--repeat", 1]


def repeat_for(n):
    # As the benchmark: small sizes need many runs for a steady median.
    return 301 if n <= 1 << 20 else 50 if n <= 1 << 24 else 20


class Blocks:
    """The block sizes, from stage 15's --describe: every one for the max, every one but the
    smallest for the rows (the sizes operations.md has always measured), and its default
    block (default_block, 256) as the default."""

    def __init__(self, description):
        self.all = description["blocks"]
        self.rows = self.all[1:]
        self.default = description["default_block"]


def tagged(row, **tags):
    row.update(tags)
    return row


MAX_BASELINES = ("bench_launch", "bench_read", "bench_cub_max")


def max_runs(listed, blocks):
    return len(MAX_SIZES) * (len(MAX_BASELINES) + 1) + len(listed) * len(blocks.all)


def row_runs(listed, blocks):
    return len(listed) + len(SHAPES) * ((len(listed) - 1) * len(blocks.rows) + 1)


def measure_max(stage, listed, blocks, progress):
    """`stage`: the max's Stage; its rows carry its target's name as their executable."""
    rows = []
    for n in MAX_SIZES:
        for executable in (*MAX_BASELINES, stage):
            options = ["--n", n, "--block", blocks.default, "--repeat", repeat_for(n)]
            rows.append(tagged(run_csv(executable, options), part="max", version=0))
        progress.step(len(MAX_BASELINES) + 1, note=f" (max, n = 2^{n.bit_length() - 1})")
    for version, _ in listed:
        for block in blocks.all:
            options = ["--n", MAX_MAIN_N, "--block", block, "--version", version, "--repeat",
                       repeat_for(MAX_MAIN_N)]
            rows.append(tagged(run_csv(stage, options), part="max versions", version=version))
        progress.step(len(blocks.all), note=f" (max, version {version})")
    return rows


def measure_rows(stage, listed, blocks, progress):
    """`stage`: a row stage's Stage (softmax, layer norm)."""
    name = stage.target(stage_registry.ANSWER)
    rows = []
    for version, _ in listed:
        probe = run_csv(stage, OFFSET_PROBE + ["--version", version])
        rows.append(tagged(probe, part="offset probe", version=version, shape=""))
    progress.step(len(listed), note=f" ({name}, offset probe)")
    for r_count, c_count in SHAPES:
        shape = f"{r_count} x {c_count}"
        for version, _ in listed[:-1]:  # the last version picks one of the others
            for block in blocks.rows:
                options = ["--rows", r_count, "--cols", c_count, "--block", block, "--version",
                           version, "--repeat", ROW_REPEAT]
                rows.append(tagged(run_csv(stage, options), part="rows", version=version,
                                   shape=shape))
        options = ["--rows", r_count, "--cols", c_count, "--block", blocks.default, "--repeat",
                   ROW_REPEAT]
        rows.append(tagged(run_csv(stage, options), part="rows default", version=len(listed),
                           shape=shape))
        progress.step((len(listed) - 1) * len(blocks.rows) + 1, note=f" ({name}, {shape})")
    return rows


def measure_copies(progress):
    rows = []
    for r_count, c_count in SHAPES:
        options = ["--n", r_count * c_count, "--repeat", ROW_REPEAT]
        rows.append(tagged(run_csv("bench_copy", options), part="copy", version=0,
                           shape=f"{r_count} x {c_count}"))
    progress.step(len(SHAPES), note=" (copies)")
    return rows


def us(ms):
    return f"{ms * 1000:.1f}"


def max_table(rows, stage_name, model):
    lines = ["| n | floor (us) | stage 15 (us) | CUB max (us) | stage 15 x floor | CUB max x floor "
             "| stage 15 x CUB max |", "|---|---|---|---|---|---|---|"]
    for n in MAX_SIZES:
        stage = next(r for r in rows if r["n"] == n and r["name"] == stage_name)
        cub = next(r for r in rows if r["n"] == n and r["name"] == "CUB max")
        floor = model["at"](n)
        lines.append(f"| 2^{n.bit_length() - 1} | {us(floor)} | {us(stage['gpu_ms'])} "
                     f"| {us(cub['gpu_ms'])} | {stage['gpu_ms'] / floor:.2f} "
                     f"| {cub['gpu_ms'] / floor:.2f} | {stage['gpu_ms'] / cub['gpu_ms']:.2f} |")
    return "\n".join(lines)


def max_versions_table(rows, listed, floor_ms, blocks):
    lines = ["| version | " + " | ".join(f"block {b}" for b in blocks.all) + " | best x floor |",
             "|---|" + "---|" * (len(blocks.all) + 1)]
    for version, technique in listed:
        cells = {r["block"]: r for r in rows if r["part"] == "max versions"
                 and r["version"] == version}
        best = min(r["gpu_ms"] for r in cells.values())
        lines.append(f"| {version} {technique} | "
                     + " | ".join(us(cells[b]["gpu_ms"]) + ("" if cells[b]["match"] else " ✗")
                                  for b in blocks.all)
                     + f" | {best / floor_ms:.2f} |")
    return "\n".join(lines)


def wrong_versions(rows, executable):
    return {r["version"] for r in rows if r["part"] == "offset probe"
            and r["executable"] == executable and not r["match"]}


def row_table(rows, executable, listed, blocks):
    wrong = wrong_versions(rows, executable)
    lines = ["| shape | version | " + " | ".join(f"block {b}" for b in blocks.rows) + " |",
             "|---|---|" + "---|" * len(blocks.rows)]
    for r_count, c_count in SHAPES:
        shape = f"{r_count} x {c_count}"
        picked = [r for r in rows if r["part"] == "rows" and r["executable"] == executable
                  and r["shape"] == shape]
        right = [r for r in picked if r["version"] not in wrong and r["match"]]
        best = min(right, key=lambda r: r["gpu_ms"]) if right else None
        for index, (version, technique) in enumerate(listed[:-1]):
            cells = []
            for block in blocks.rows:
                r = next(x for x in picked if x["version"] == version and x["block"] == block)
                text = us(r["gpu_ms"]) + ("" if r["match"] else " ✗")
                cells.append(f"**{text}**" if r is best else text)
            label = f"{version} {technique}" + (" (fails at offset 10^4)" if version in wrong
                                                else "")
            lines.append(f"| {shape if index == 0 else ''} | {label} | " + " | ".join(cells)
                         + " |")
    return "\n".join(lines)


def row_summary(rows, stages, copies, blocks):
    header = "| shape | copy floor (us) |"
    rule = "|---|---|"
    for executable, _ in stages:
        header += (f" {executable} default, block {blocks.default} (us) | x floor "
                   f"| {executable} best (us) | x floor |")
        rule += "---|---|---|---|"
    lines = [header, rule]
    for r_count, c_count in SHAPES:
        shape = f"{r_count} x {c_count}"
        floor = copies[shape]["gpu_ms"]
        line = f"| {shape} | {us(floor)} |"
        for executable, _ in stages:
            wrong = wrong_versions(rows, executable)
            default = next(r for r in rows if r["part"] == "rows default"
                           and r["executable"] == executable and r["shape"] == shape)
            right = [r for r in rows if r["part"] == "rows" and r["executable"] == executable
                     and r["shape"] == shape and r["match"] and r["version"] not in wrong]
            best = min(right, key=lambda r: r["gpu_ms"])
            line += (f" {us(default['gpu_ms'])}{'' if default['match'] else ' ✗'} "
                     f"| {default['gpu_ms'] / floor:.2f} | {us(best['gpu_ms'])} (v{best['version']}"
                     f", block {best['block']}) | {best['gpu_ms'] / floor:.2f} |")
        lines.append(line)
    return "\n".join(lines)


def page(meta, rows, max_stage, max_listed, row_stages, names, model, blocks):
    copies = {r["shape"]: r for r in rows if r["part"] == "copy"}
    main_floor = model["at"](MAX_MAIN_N)
    row_sections = "\n\n".join(
        f"### {executable}: {names[executable]}, GPU time (us)\n\n"
        f"{row_table(rows, executable, listed, blocks)}"
        for executable, listed in row_stages)
    return f"""# Max, softmax and layer norm against their floors

Written by `scripts/bench.sh --operations` (do not edit by hand; [the script](../../scripts/course/operations_bench.py)).
Input seed {meta['seed']}; every timed run starts from a clean L2 (as in the
[benchmark](README.md)); each time is the median of the process's timed runs (301 up to
2^20 values, 50 up to 2^24, 20 above; {ROW_REPEAT} for every matrix), measured with CUDA
events after a warm-up; every result was verified after timing. ✗ marks a run that did not
match the CPU reference.

- Device: {meta['device']}
- Driver: {meta['driver']}
- CUDA: {meta['cuda']}
- Date: {meta['date']}
- Commit: {meta['commit']}

## Stage 15: max against CUB's max and the floor

Stage 15 at its default (version {len(max_listed)}), block {blocks.default}, against
`cub::DeviceReduce::Max` (`bench_cub_max`). The floor is the benchmark's, from this run's
`bench_launch` and `bench_read` at these sizes: an empty launch of {model['launch_ms'] * 1000:.2f} us
plus 4n bytes at {model['ceiling_gbps']:.0f} GB/s.

{max_table(rows, max_stage, model)}

### The six versions at n = 2^24, GPU time (us)

Best x floor: the version's fastest block against the floor at 2^24 ({us(main_floor)} us).

{max_versions_table(rows, max_listed, main_floor, blocks)}

## Stages 16 and 17: a matrix in, a matrix out

Every shape holds 2^24 floats (64 MiB read, 64 MiB written). The floor of each shape is
`bench_copy` on the same number of floats (read once, write once); x floor is time / that
copy. "Default" is the stage run without `--version` (the version that picks by row length);
"best" is the fastest cell of the tables below among the versions that also match on rows of
10^4 plus noise.

{row_summary(rows, row_stages, copies, blocks)}

{row_sections}
"""


def run_operations(stages, meta, out):
    """stages: {Stage: description} for the answers that are not sums (15, 16, 17), each
    with its --describe (operation, kind, versions, blocks, default block). The page names
    each by its target (the registry's)."""
    max_stage = next(s for s, d in stages.items() if d["operation"] == "max")
    max_target = max_stage.target(stage_registry.ANSWER)
    max_listed = describe.versions(stages[max_stage])
    row_stages = [s for s, d in stages.items() if describe.takes_rows(d)]
    listed = {s: describe.versions(stages[s]) for s in row_stages}
    # "layer_norm" -> "layer norm": the operation in words.
    names = {s.target(stage_registry.ANSWER): d["operation"].replace("_", " ")
             for s, d in stages.items()}
    blocks = Blocks(stages[max_stage])
    progress = Progress("bench")
    progress.plan(max_runs(max_listed, blocks) + len(SHAPES)
                  + sum(row_runs(listed[s], blocks) for s in row_stages))
    rows = measure_max(max_stage, max_listed, blocks, progress)
    for stage in row_stages:
        rows += measure_rows(stage, listed[stage], blocks, progress)
    rows += measure_copies(progress)
    model = floor_model(rows)
    max_name = next(r["name"] for r in rows if r["executable"] == max_target and r["version"] == 0)
    row_stages = [(s.target(stage_registry.ANSWER), listed[s]) for s in row_stages]
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "operations.csv", rows)
    text = page(meta, rows, max_name, max_listed, row_stages, names, model, blocks)
    (out / "operations.md").write_text(text)
    print(text)
    failed = [r for r in rows if not r["match"] and r["part"] != "offset probe"]
    return 1 if failed else 0
