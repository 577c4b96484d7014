"""Max, softmax and layer norm (stages 15 to 17) against the benchmark's two references, run
by `scripts/bench.sh --operations` (bench.py --operations).

The references are the sum benchmark's (course/floors.py), for the bytes each stage moves:
- the physical limit: an empty launch (bench_launch, the median over this run's sizes) plus
  the bytes that must move at the memory's theoretical bandwidth (bench_memory: 2 x memory
  clock x bus width / 8). The max reads 4n bytes; softmax and layer norm read the matrix once
  and write one of the same shape, 8 x rows x cols bytes;
- the best measured one: for the max the best read at n (the fastest of bench_read's three
  kernels, or a reduction's time where one was faster than all of them); for the rows the
  best measured copy, bench_copy of the same number of floats (read once, written once).
Stage 15's default is also set against CUB's cub::DeviceReduce::Max (bench_cub_max). Every
version at every block size, the shapes the lessons use, each run from a clean L2, the
median of its timed runs, every result verified after timing. Each row version also runs
once on rows of 10^4 plus noise (--offset 10000): a version that fails there is marked and
left out of "best".

The saved run holds everything the page is made from, so that no GPU is needed to make it
again: operations.csv (one line per run: the --csv columns, its part, version and shape) and
operations.json ({"format", "meta": device, driver, CUDA, date, commit, seed, block,
launch_us, memory_clock_khz, bus_width_bits, peak_gbps; "stages": each measured stage's
--describe and target}). operations.md is page(rows, run) of the two; `scripts/bench.sh
--operations --docs-only` writes it again and `--operations --check-docs` compares
(bench.py, rewrite_operations_docs).

A lesson (stages/stageNN_*/README.md) of a stage measured here may quote the saved run's
numbers: between the markers
    <!-- bench-operations:begin (written by scripts/bench.py) -->
    <!-- bench-operations:end -->
--operations (into docs/results) and --operations --docs-only write its stage's table
(lesson_block: the max against both references and CUB at every n; a row stage's default and
best version at every shape, x copy and x limit), and --operations --check-docs compares it.
"""
import csv
import json

from course import describe, floors
from course import registry as stage_registry
from course.cli import Stop
from course.gpu import Progress, memory_peak, missing, run_csv, write_csv

MAX_SIZES = [1 << k for k in (16, 20, 24, 28, 30)]
MAX_MAIN_N = 1 << 24
SHAPES = [(16384, 1024), (131072, 128), (512, 32768), (128, 131072)]
ROW_REPEAT = 20
OFFSET_PROBE = ["--rows", 256, "--cols", 1024, "--offset", 10000, "--repeat", 1]
# Each row of the matrix is read once and written once, 4 bytes a float each way.
ROW_BYTES_PER_VALUE = 8

CSV_FILE, JSON_FILE, PAGE_FILE = "operations.csv", "operations.json", "operations.md"
# The saved run's layout. Runs saved before operations.json had no bandwidth or stages to
# make today's page from; a later change of layout changes this number.
FORMAT = 2
BEGIN = "<!-- bench-operations:begin (written by scripts/bench.py) -->"
END = "<!-- bench-operations:end -->"
# A copy at most this many times the limit is "close to or under" it (the page says why).
CLOSE_TO_LIMIT = 1.05
# What the saved run keeps of each stage's --describe: what the page reads.
DESCRIBED = ("number", "operation", "kind", "versions", "default_version", "blocks",
             "default_block")
# operations.csv's numbers and flags, typed again when it is read back.
TYPED = {"n": int, "block": int, "version": int, "gpu_ms": float, "gbps": float,
         "match": lambda text: text == "True"}


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


# At every n the max runs these beside stage 15: the launch and bench_read's three kernels
# make the references (floors.references), CUB's max the yardstick.
MAX_BASELINES = (("bench_launch", ()), ("bench_read", ()),
                 *(("bench_read", ("--version", v)) for v in floors.READ_VERSIONS),
                 ("bench_cub_max", ()))


def max_runs(listed, blocks):
    return len(MAX_SIZES) * (len(MAX_BASELINES) + 1) + len(listed) * len(blocks.all)


def row_runs(listed, blocks):
    return len(listed) + len(SHAPES) * ((len(listed) - 1) * len(blocks.rows) + 1)


def measure_max(stage, listed, blocks, progress):
    """`stage`: the max's Stage; its rows carry its target's name as their executable."""
    rows = []
    for n in MAX_SIZES:
        for executable, extra in (*MAX_BASELINES, (stage, ())):
            options = ["--n", n, "--block", blocks.default, "--repeat", repeat_for(n), *extra]
            rows.append(tagged(run_csv(executable, options), part="max", version=0))
        progress.step(len(MAX_BASELINES) + 1, note=f" (max, n = 2^{n.bit_length() - 1})")
    for version, _ in listed:
        for block in blocks.all:
            options = ["--n", MAX_MAIN_N, "--block", block, "--version", version, "--repeat",
                       repeat_for(MAX_MAIN_N)]
            rows.append(tagged(run_csv(stage, options), part="max versions", version=version))
        progress.step(len(blocks.all), note=f" (max, version {version})")
    return rows


def measure_rows(stage, name, listed, blocks, progress):
    """`stage`: a row stage's Stage (softmax, layer norm), `name` its target's name."""
    rows = []
    for version, _ in listed:
        probe = run_csv(stage, OFFSET_PROBE + ["--version", version])
        rows.append(tagged(probe, part="offset probe", version=version, shape=""))
    progress.step(len(listed), note=f" ({name}, offset probe)")
    for r_count, c_count in SHAPES:
        shape = shape_name(r_count, c_count)
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
                           shape=shape_name(r_count, c_count)))
    progress.step(len(SHAPES), note=" (copies)")
    return rows


# ---------------------------------------------------------------------- the saved run
def shape_name(r_count, c_count):
    return f"{r_count} x {c_count}"


def described(run):
    """The saved run's stages' descriptions, by number."""
    return [run["stages"][key] for key in sorted(run["stages"], key=int)]


def max_stage(run):
    return next(d for d in described(run) if d["operation"] == "max")


def row_stages(run):
    return [d for d in described(run) if describe.takes_rows(d)]


def operation_words(description):
    return description["operation"].replace("_", " ")  # "layer_norm" -> "layer norm"


def saved_run(meta, stages):
    """operations.json's content: `meta` (bench.metadata with the launch filled in) and
    `stages`, {Stage: its --describe}."""
    return {"format": FORMAT, "meta": meta,
            "stages": {str(s.number): {**{k: d[k] for k in DESCRIBED},
                                       "target": s.target(stage_registry.ANSWER)}
                       for s, d in sorted(stages.items(), key=lambda item: item[0].number)}}


def read_rows(path):
    """operations.csv's rows with their numbers and flags typed as run_csv gave them."""
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    for r in rows:
        for key, kind in TYPED.items():
            r[key] = kind(r[key])
    return rows


class Stale(Exception):
    """The saved run cannot be made into today's page, or lacks what this tree has: one
    line saying why."""


def version_span(versions):
    return f"{versions[0]}-{versions[-1]}" if len(versions) > 1 else str(versions[0])


def check_covers(run, tree):
    """Stale where the saved run lacks a stage, or a stage's versions, of `tree` ({number:
    [version numbers]}: this tree's stages measured here)."""
    saved = {int(k): [v["version"] for v in d["versions"]] for k, d in run["stages"].items()}
    for number, versions in sorted(tree.items()):
        if number not in saved:
            raise Stale(f"has no stage {number:02d}, which this tree has")
        if saved[number] != versions:
            raise Stale(f"measured stage {number:02d}'s versions {version_span(saved[number])}, "
                        f"this tree has {version_span(versions)}")


def first_difference(expected, actual):
    """Where the page on disk (`actual`) first differs from the one the saved run makes
    (`expected`): 'line 42 (under "### stage16: ...")'; None where they are the same."""
    if expected == actual:
        return None
    want, have = expected.splitlines(), actual.splitlines()
    index = next((i for i, (a, b) in enumerate(zip(want, have)) if a != b),
                 min(len(want), len(have)))
    heading = next((line for line in reversed(want[:index + 1]) if line.startswith("#")), None)
    return f"line {index + 1}" + (f' (under "{heading}")' if heading else "")


# ---------------------------------------------------------------------- the figures
def us(ms):
    return "-" if ms is None else f"{ms * 1000:.1f}"


def times(ms, reference, unit=""):
    """ms as a multiple of the reference ('1.24'); '-' without the reference."""
    return f"{ms / reference:.2f}{unit}" if ms is not None and reference else "-"


def launch_and_peak(rows, run):
    return floors.launch_ms(rows), run["meta"].get("peak_gbps")


def max_figures(rows, run):
    """Per n: the references (floors.references of the max's own rows), stage 15's default
    row and CUB's max."""
    memory = {"peak_gbps": run["meta"].get("peak_gbps")}
    swept = [r for r in rows if r["part"] == "max"]
    refs = floors.references(swept, memory)
    target = max_stage(run)["target"]
    figures = []
    for n in MAX_SIZES:
        at_n = [r for r in swept if r["n"] == n]
        figures.append({"n": n, "ref": refs.get(n, {}),
                        "stage": next(r for r in at_n if r["executable"] == target),
                        "cub": next(r for r in at_n if r["executable"] == "bench_cub_max")})
    return figures, refs


def wrong_versions(rows, executable):
    return {r["version"] for r in rows if r["part"] == "offset probe"
            and r["executable"] == executable and not r["match"]}


def best_row(rows, executable, shape):
    """The fastest matching cell at `shape` among the versions that also match at offset
    10^4; None where there is none."""
    wrong = wrong_versions(rows, executable)
    right = [r for r in rows if r["part"] == "rows" and r["executable"] == executable
             and r["shape"] == shape and r["match"] and r["version"] not in wrong]
    return min(right, key=lambda r: r["gpu_ms"]) if right else None


def row_references(rows, run):
    """{shape: {'copy_ms', 'limit_ms'}}: the best measured copy and the physical limit of a
    matrix read once and written once."""
    launch, peak = launch_and_peak(rows, run)
    copies = {r["shape"]: r["gpu_ms"] for r in rows if r["part"] == "copy"}
    return {shape_name(rc, cc): {"copy_ms": copies.get(shape_name(rc, cc)),
                                 "limit_ms": floors.limit_ms(launch, peak,
                                                             ROW_BYTES_PER_VALUE * rc * cc)}
            for rc, cc in SHAPES}


def row_figures(rows, executable, shape):
    """A row stage's default row and best row at `shape`."""
    default = next(r for r in rows if r["part"] == "rows default"
                   and r["executable"] == executable and r["shape"] == shape)
    return default, best_row(rows, executable, shape)


def close_copies(refs):
    """[(shape, copy x limit)] where the copy came within CLOSE_TO_LIMIT of the limit."""
    return [(shape, ref["copy_ms"] / ref["limit_ms"]) for shape, ref in refs.items()
            if ref["copy_ms"] and ref["limit_ms"]
            and ref["copy_ms"] / ref["limit_ms"] < CLOSE_TO_LIMIT]


# ---------------------------------------------------------------------- the page
def mark(row):
    return "" if row["match"] else " ✗"


def max_table(rows, run):
    figures, refs = max_figures(rows, run)
    who = f"stage {max_stage(run)['number']}"
    lines = [f"| n | limit (us) | best read (us) | {who} (us) | CUB max (us) | {who} x limit "
             f"| {who} x best read | CUB max x limit | CUB max x best read | {who} x CUB max |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for f in figures:
        limit, read = f["ref"].get("limit_ms"), f["ref"].get("best_read_ms")
        stage, cub = f["stage"]["gpu_ms"], f["cub"]["gpu_ms"]
        lines.append(f"| {floors.power(f['n'])} | {us(limit)} | {us(read)} "
                     f"| {us(stage)}{mark(f['stage'])} | {us(cub)}{mark(f['cub'])} "
                     f"| {times(stage, limit)} | {times(stage, read)} | {times(cub, limit)} "
                     f"| {times(cub, read)} | {times(stage, cub)} |")
    return "\n".join(lines + [""] + floors.beaten_lines(refs)).rstrip()


def max_version_cells(rows, version, blocks, bold_best=False):
    """(the version's cell texts at every block at n = 2^24, its fastest row)."""
    cells = {r["block"]: r for r in rows if r["part"] == "max versions"
             and r["version"] == version}
    best = min(cells.values(), key=lambda r: r["gpu_ms"])
    shown = [us(cells[b]["gpu_ms"]) + mark(cells[b]) for b in blocks.all]
    if bold_best:
        shown = [f"**{t}**" if cells[b] is best else t for t, b in zip(shown, blocks.all)]
    return shown, best


def max_main_references(rows, run):
    """(physical limit, best read) in ms at the max's main n, None where not measured."""
    ref = max_figures(rows, run)[1].get(MAX_MAIN_N, {})
    return ref.get("limit_ms"), ref.get("best_read_ms")


def max_versions_table(rows, run, blocks):
    limit, read = max_main_references(rows, run)
    lines = ["| version | " + " | ".join(f"block {b}" for b in blocks.all)
             + " | best x limit | best x best read |",
             "|---|" + "---|" * (len(blocks.all) + 2)]
    for version, technique in describe.versions(max_stage(run)):
        shown, best = max_version_cells(rows, version, blocks)
        lines.append(f"| {version} {technique} | " + " | ".join(shown)
                     + f" | {times(best['gpu_ms'], limit)} | {times(best['gpu_ms'], read)} |")
    return "\n".join(lines)


def row_version_lines(rows, stage, blocks, head_of, wrong_note):
    """The body of a version x block table of a row stage: every version but the last (the
    default, which picks one of them) at every shape, the shape's fastest correct cell
    bold; head_of(shape) fills a shape's first cell, wrong_note marks a version that fails
    on rows of 10^4 plus noise."""
    executable = stage["target"]
    wrong = wrong_versions(rows, executable)
    lines = []
    for r_count, c_count in SHAPES:
        shape = shape_name(r_count, c_count)
        picked = [r for r in rows if r["part"] == "rows" and r["executable"] == executable
                  and r["shape"] == shape]
        best = best_row(rows, executable, shape)
        for index, (version, technique) in enumerate(describe.versions(stage)[:-1]):
            cells = []
            for block in blocks.rows:
                r = next(x for x in picked if x["version"] == version and x["block"] == block)
                text = us(r["gpu_ms"]) + mark(r)
                cells.append(f"**{text}**" if r is best else text)
            label = f"{version} {technique}" + (wrong_note if version in wrong else "")
            lines.append(f"| {head_of(shape) if index == 0 else ''} | {label} | "
                         + " | ".join(cells) + " |")
    return lines


def row_table(rows, stage, blocks):
    """Every version but the last (the default, which picks one of them) at every block."""
    lines = ["| shape | version | " + " | ".join(f"block {b}" for b in blocks.rows) + " |",
             "|---|---|" + "---|" * len(blocks.rows)]
    return "\n".join(lines + row_version_lines(rows, stage, blocks, lambda shape: shape,
                                               " (fails at offset 10^4)"))


def best_text(best):
    return "-" if best is None else f"{us(best['gpu_ms'])} (v{best['version']}, block {best['block']})"


def row_summary(rows, run, blocks):
    refs = row_references(rows, run)
    header = "| shape | limit (us) | copy (us) | copy x limit |"
    rule = "|---|---|---|---|"
    for stage in row_stages(run):
        name = stage["target"]
        header += (f" {name} default, block {blocks.default} (us) | x copy | x limit "
                   f"| {name} best (us) | x copy | x limit |")
        rule += "---|---|---|---|---|---|"
    lines = [header, rule]
    for shape, ref in refs.items():
        copy, limit = ref["copy_ms"], ref["limit_ms"]
        line = f"| {shape} | {us(limit)} | {us(copy)} | {times(copy, limit)} |"
        for stage in row_stages(run):
            default, best = row_figures(rows, stage["target"], shape)
            best_ms = best["gpu_ms"] if best else None
            line += (f" {us(default['gpu_ms'])}{mark(default)} | {times(default['gpu_ms'], copy)} "
                     f"| {times(default['gpu_ms'], limit)} | {best_text(best)} "
                     f"| {times(best_ms, copy)} | {times(best_ms, limit)} |")
        lines.append(line)
    return "\n".join(lines)


def copy_note(rows, run):
    """The sentence on copies at or near the limit, where this run has one."""
    close = close_copies(row_references(rows, run))
    if not close:
        return ""
    where = ", ".join(f"{shape} ({x:.2f} x limit)" for shape, x in close)
    return (f"\n\nThe copy came within {(CLOSE_TO_LIMIT - 1) * 100:.0f}% of the limit or under "
            f"it at {where}: a copy can come close to or under the limit by reads and writes "
            "because the L2 absorbs writes (a line written near the end of a timed run can "
            "still be in the L2, not yet in memory, when the run's end is recorded).")


def references_text(rows, run):
    meta = run["meta"]
    launch, peak = launch_and_peak(rows, run)
    if not peak or launch is None:
        return ("The physical limit was not measured (no `bench_memory` or `bench_launch`); "
                "the measured references stand alone.")
    return (f"Two references beside every time, as in the [benchmark](README.md). **The "
            f"physical limit** is an empty launch ({launch * 1000:.2f} us, `bench_launch`, the median "
            f"over this run's sizes) plus the bytes that must move at {peak:.0f} GB/s, the "
            f"memory's theoretical bandwidth (`bench_memory`: memory clock "
            f"{meta['memory_clock_khz']} kHz x bus {meta['bus_width_bits']} bits / 8 x 2 "
            "transfers per clock): 4n bytes read for the max, the matrix read once and written "
            "once for softmax and layer norm. The measured reference is **the best read** for "
            "the max (the fastest of `bench_read`'s three kernels at that n, or a reduction's "
            "time where one was faster than all of them) and **the best copy** for the rows "
            "(`bench_copy` of the same number of floats: read once, written once).")


def page(rows, run):
    """operations.md from the saved run: its rows (operations.csv) and `run`
    (operations.json)."""
    meta = run["meta"]
    blocks = Blocks(max_stage(run))
    maximum = max_stage(run)
    row_sections = "\n\n".join(
        f"### {s['target']}: {operation_words(s)}, GPU time (us)\n\n{row_table(rows, s, blocks)}"
        for s in row_stages(run))
    ref = max_figures(rows, run)[1].get(MAX_MAIN_N, {})
    return f"""# Max, softmax and layer norm against their references

Written by `scripts/bench.sh --operations` (do not edit by hand; [the script](../../scripts/course/operations_bench.py);
`scripts/bench.sh --operations --docs-only` writes it again from [operations.csv](operations.csv)
and [operations.json](operations.json)).
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

{references_text(rows, run)}

## Stage {maximum['number']}: max against CUB's max and both references

Stage {maximum['number']} at its default (version {maximum['default_version']}), block {blocks.default}, against
`cub::DeviceReduce::Max` (`bench_cub_max`).

{max_table(rows, run)}

### Every version at n = 2^24, GPU time (us)

Best x limit and best x best read: the version's fastest block against the references at 2^24
(limit {us(ref.get('limit_ms'))} us, best read {us(ref.get('best_read_ms'))} us).

{max_versions_table(rows, run, blocks)}

## Stages {' and '.join(str(s['number']) for s in row_stages(run))}: a matrix in, a matrix out

Every shape holds 2^24 floats (64 MiB read, 64 MiB written). Each shape's references: the
physical limit of those 128 MiB and `bench_copy` on the same number of floats; x copy is time
/ that copy, x limit time / that limit. "Default" is the stage run without `--version` (the
version that picks by row length); "best" is the fastest cell of the tables below among the
versions that also match on rows of 10^4 plus noise.

{row_summary(rows, run, blocks)}{copy_note(rows, run)}

{row_sections}
"""


# ---------------------------------------------------------------------- the lessons' blocks
def lesson_head(run, what):
    meta = run["meta"]
    peak = f"{meta['peak_gbps']:.0f} GB/s" if meta.get("peak_gbps") else "(측정하지 않음)"
    return (f"`scripts/bench.sh --operations`의 측정 ({meta['device']}, CUDA {meta['cuda']}, "
            f"{meta['date']}; 블록 {meta['block']}, 매 실행 전 L2를 깨끗이 비움). 물리 한계: 빈 런치 + "
            f"{what} ÷ 메모리의 이론 대역폭 {peak}.")


def max_lesson_block(rows, run):
    figures, _ = max_figures(rows, run)
    lines = [lesson_head(run, "4n 바이트") + " 최선의 읽기: `bench_read`의 가장 빠른 커널.", "",
             "| n | GPU 시간 | 물리 한계 대비 | 최선의 읽기 대비 | CUB max | 물리 한계 대비 "
             "| 최선의 읽기 대비 | CUB max 대비 |", "|---|---|---|---|---|---|---|---|"]
    for f in figures:
        limit, read = f["ref"].get("limit_ms"), f["ref"].get("best_read_ms")
        stage, cub = f["stage"]["gpu_ms"], f["cub"]["gpu_ms"]
        lines.append(f"| {floors.power(f['n'])} | {us(stage)} us | {times(stage, limit, '배')} "
                     f"| {times(stage, read, '배')} | {us(cub)} us | {times(cub, limit, '배')} "
                     f"| {times(cub, read, '배')} | {times(stage, cub, '배')} |")
    return lines


def row_lesson_block(rows, run, stage):
    refs = row_references(rows, run)
    lines = [lesson_head(run, "행렬을 한 번 읽고 한 번 쓰는 바이트") + " 복사: 같은 수의 float를 "
             "`bench_copy`로 복사한 시간. 기본: `--version` 없이 실행(행 길이로 고르는 버전), 최선: "
             "10^4 + 잡음의 행에서도 맞는 버전 가운데 가장 빠른 칸.", "",
             "| 모양 | 물리 한계 | 복사 | 기본 | 복사 대비 | 물리 한계 대비 | 최선 | 복사 대비 "
             "| 물리 한계 대비 |", "|---|---|---|---|---|---|---|---|---|"]
    for shape, ref in refs.items():
        copy, limit = ref["copy_ms"], ref["limit_ms"]
        default, best = row_figures(rows, stage["target"], shape)
        best_ms = best["gpu_ms"] if best else None
        best_cell = ("-" if best is None else
                     f"{us(best_ms)} us (버전 {best['version']}, 블록 {best['block']})")
        lines.append(f"| {shape} | {us(limit)} us | {us(copy)} us | {us(default['gpu_ms'])} us "
                     f"| {times(default['gpu_ms'], copy, '배')} "
                     f"| {times(default['gpu_ms'], limit, '배')} | {best_cell} "
                     f"| {times(best_ms, copy, '배')} | {times(best_ms, limit, '배')} |")
    close = close_copies(refs)
    if close:
        where = ", ".join(f"{shape}에서 {x:.2f}배" for shape, x in close)
        lines += ["", f"복사 자신이 물리 한계에 가깝거나 그 아래입니다({where}): L2가 쓰기를 받아 두므로, "
                  "타이머가 멈출 때 아직 메모리에 쓰이지 않은 줄이 있을 수 있습니다."]
    return lines


def marked_blocks(rows, run, max_block, row_block):
    """{stage number: its block's lines between BEGIN and END, markers included}: the max's
    from max_block(rows, run), each row stage's from row_block(rows, run, stage)."""
    blocks = {max_stage(run)["number"]: max_block(rows, run)}
    for stage in row_stages(run):
        blocks[stage["number"]] = row_block(rows, run, stage)
    return {number: "\n".join([BEGIN, *lines, END]) for number, lines in blocks.items()}


def lesson_blocks(rows, run):
    """{stage number: the text between its lesson's operations markers, markers included}."""
    return marked_blocks(rows, run, max_lesson_block, row_lesson_block)


# ------------------------------------------------------------- the details pages' blocks
def max_details_block(rows, run):
    """Every version of the max at every block (n = 2^24), then the lesson's table."""
    blocks = Blocks(max_stage(run))
    limit, read = max_main_references(rows, run)
    lines = [lesson_head(run, "4n 바이트") + f" n = 2^24의 물리 한계 {us(limit)} us, 최선의 "
             f"읽기(`bench_read`의 가장 빠른 커널) {us(read)} us. GPU 시간(us), 굵은 칸은 그 "
             "버전의 가장 빠른 블록.", "",
             "| 버전 | " + " | ".join(f"블록 {b}" for b in blocks.all)
             + " | 최선 / 물리 한계 | 최선 / 최선의 읽기 |",
             "|---|" + "---|" * (len(blocks.all) + 2)]
    for version, technique in describe.versions(max_stage(run)):
        shown, best = max_version_cells(rows, version, blocks, bold_best=True)
        lines.append(f"| {version} {technique} | " + " | ".join(shown)
                     + f" | {times(best['gpu_ms'], limit, '배')} "
                     f"| {times(best['gpu_ms'], read, '배')} |")
    return lines + ["", "기본 버전과 CUB의 최댓값(`cub::DeviceReduce::Max`):", "",
                    *max_lesson_block(rows, run)[2:]]


def row_details_block(rows, run, stage):
    """Every version but the default at every block and shape, each shape's references
    in its first cell."""
    blocks = Blocks(max_stage(run))
    refs = row_references(rows, run)

    def head_of(shape):
        ref = refs.get(shape, {})
        return f"{shape} ({us(ref.get('limit_ms'))} / {us(ref.get('copy_ms'))})"

    lines = [lesson_head(run, "행렬을 한 번 읽고 한 번 쓰는 바이트") + " 복사: 같은 수의 float를 "
             "`bench_copy`로 복사한 시간. GPU 시간(us), 굵은 칸은 그 모양에서 가장 빠른 칸(10^4 + "
             "잡음의 행에서도 맞는 버전 가운데). 기본 버전은 이 가운데 하나를 행 길이로 고릅니다.", "",
             "| 모양 (한계 / 복사, us) | 버전 | " + " | ".join(f"블록 {b}" for b in blocks.rows)
             + " |", "|---|---|" + "---|" * len(blocks.rows)]
    return lines + row_version_lines(rows, stage, blocks, head_of, " (10^4 오프셋에서 틀림)")


def details_blocks(rows, run):
    """{stage number: the text between its details page's operations markers, markers
    included}: every version at every block, from the same run as the lessons' blocks."""
    return marked_blocks(rows, run, max_details_block, row_details_block)


# ---------------------------------------------------------------------- the run
def run_operations(stages, meta, out):
    """stages: {Stage: description} for the answers that are not sums (15, 16, 17), each
    with its --describe (operation, kind, versions, blocks, default block); `meta`:
    bench.metadata, to which the run adds the memory's numbers (bench_memory) and the empty
    launch. The page names each stage by its target (the registry's)."""
    unbuilt = missing([e for e, _ in MAX_BASELINES] + ["bench_copy", "bench_memory"])
    if unbuilt:
        raise Stop(f"bench.py: error: {', '.join(unbuilt)} not built; run scripts/bench.sh", 1)
    max_of = next(s for s, d in stages.items() if d["operation"] == "max")
    max_listed = describe.versions(stages[max_of])
    rowed = [s for s, d in stages.items() if describe.takes_rows(d)]
    listed = {s: describe.versions(stages[s]) for s in rowed}
    blocks = Blocks(stages[max_of])
    memory = memory_peak()
    progress = Progress("bench")
    progress.plan(max_runs(max_listed, blocks) + len(SHAPES)
                  + sum(row_runs(listed[s], blocks) for s in rowed))
    rows = measure_max(max_of, max_listed, blocks, progress)
    for stage in rowed:
        rows += measure_rows(stage, stage.target(stage_registry.ANSWER), listed[stage],
                             blocks, progress)
    rows += measure_copies(progress)
    launch = floors.launch_ms(rows)
    run = saved_run({**meta, **memory, "launch_us": launch * 1000 if launch is not None
                     else None}, stages)
    save(out, rows, run)
    # The page is made from what was saved, as --docs-only makes it: the two cannot differ.
    text = page(read_rows(out / CSV_FILE), run)
    (out / PAGE_FILE).write_text(text)
    print(text)
    failed = [r for r in rows if not r["match"] and r["part"] != "offset probe"]
    return 1 if failed else 0


def save(out, rows, run):
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / CSV_FILE, rows)
    (out / JSON_FILE).write_text(json.dumps(run, indent=1, ensure_ascii=False) + "\n")


def load(folder):
    """(rows, run) of the run saved in `folder`; Stale where it has no operations.json of
    today's format (a run saved before it); FileNotFoundError without operations.csv."""
    rows = read_rows(folder / CSV_FILE)
    path = folder / JSON_FILE
    run = json.loads(path.read_text()) if path.is_file() else {}
    if run.get("format") != FORMAT:
        raise Stale(f"predates {JSON_FILE} (the device, launch time, theoretical bandwidth and "
                    "stages' versions the page is made from)")
    return rows, run
