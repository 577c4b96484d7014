"""Benchmarks every answer stage against CUB and the memory's floor.

Runs build/bin/stageNN, bench_cub, bench_read, bench_launch and bench_copy with --csv on
the same input (seed 12345), block 256, for n = 2^10 to 2^30. Each executable times with
CUDA events after a warm-up, reports the median of its timed runs (301 up to 2^20, 50 up
to 2^24, 20 above), and verifies its result after timing. Before every timed run the L2 holds nothing of the input and no dirty lines
(--dirty-l2: the L2 full of dirty lines instead, to compare).

Two references beside every time (course/floors.py): the physical limit, an empty launch
(bench_launch, the median over all sizes) plus 4n bytes at the memory's theoretical
bandwidth (bench_memory: 2 x memory clock x bus width / 8), and the best measured read, the
fastest of bench_read's three kernels at that n, or a reduction's time where one was faster
than every read (the page says where). Every time is given as a multiple of both (x limit,
x floor) and of CUB's time at the same n (x CUB). Then stage 14 and CUB run as alternated
process pairs at every n (--pairs, default 5, the sweep's own pair the first): the median
of stage 14 / CUB and its range decide what the README and the capstone's lesson claim.

Writes, under docs/results/ (or --out): results.csv, results.json, bandwidth.png and
README.md (the results page); prints the table; and, for the default run, refreshes the
tables between the bench markers of the top-level README.md and of each stage's lesson.

Markers, each pair rewritten from a saved run (--docs-only) and compared with it
(--check-docs), never edited by hand:
    <!-- bench:begin (written by scripts/bench.py) --> ... <!-- bench:end -->
        README.md: every sum stage at n = 2^24; a sum stage's lesson: its own row
        (results.json)
    <!-- bench-claim:begin (written by scripts/bench.py) --> ... <!-- bench-claim:end -->
        README.md and the capstone's lesson: stage 14 against CUB, from the pairs
        (results.json)
    <!-- bench-operations:begin (written by scripts/bench.py) --> ... <!-- bench-operations:end -->
        the lesson of stage 15, 16 or 17: its times, x limit and x best read (the max) or
        x copy (the rows), from operations.csv and operations.json (course/operations_bench.py)
A lesson without a pair of markers is left alone.

Every page names the commit it measured: HEAD, "with uncommitted changes" where the tracked
files differ from it, or BENCH_COMMIT where that is set (a tree copied without its .git).

    scripts/bench.sh                 (builds first, then measures)
    scripts/bench.sh --quick         (n = 2^24 only, fewer repeats: a smoke test)
    scripts/bench.sh --pairs 7       (7 process pairs of stage 14 and CUB per size)
    scripts/bench.sh --sizes 10-29 --out build/bench/a, then --sizes 30 --out build/bench/b,
    then scripts/bench.sh --merge build/bench/a build/bench/b   (the sweep in two parts)
    scripts/bench.sh --sizes 20-24   (some sizes only; README and lessons left alone)
    scripts/bench.sh --docs-only     (rewrite README and lesson tables from results.json;
                                      no build, no GPU)
    scripts/bench.sh --operations --docs-only   (operations.md and the operations blocks of
                                      the lessons and details pages from operations.csv
                                      and .json; no GPU)
    scripts/bench.sh --steps         (stage 14's techniques one at a time: stage14_steps.md)
    scripts/bench.sh --lessons       (block sizes and the lessons' variants: lessons.md)
    scripts/bench.sh --operations    (stages 15 to 17 against the limit, the best read or
                                      copy and CUB's max: operations.md)
    scripts/bench.sh --multi-gpu     (stage 18 on 1 and 2 GPUs, the all-reduce: multi_gpu.md)

scripts/bench.sh runs `python3 -m course.bench --build-first`; `python3 -m course.bench`
(scripts/ on PYTHONPATH) measures a build that is already there.
Exit code: 0 every run verified, 1 some did not, 3 no CUDA device, 4 build error;
--check-docs: 0 the tables match, 1 one differs, 77 this tree lacks a stage the saved run
measured (a partial student edition: nothing to check); --operations --check-docs: 0
operations.md and the operations blocks of the lessons and details pages match
operations.csv and operations.json,
1 one differs (one line each: for the page, its first differing line and the heading above
it), 77 the saved run predates operations.json or lacks a stage or version this tree has.
"""
import argparse
import datetime
import json
import pathlib
import subprocess
import sys

from course import build, describe, floors, operations_bench
from course import registry as stage_registry
from course.cli import Stop, run_main
from course.gpu import (BIN, ROOT, Progress, answer_descriptions, build_first, machine,
                        memory_peak, missing, registry, require_answers, require_device, run_csv,
                        write_csv)
from course.lessons_bench import run_lessons
from course.operations_bench import run_operations
from course.multi_gpu_bench import run_multi_gpu

MAIN_N = 1 << 24
FLOOR_CHECK_N = (1 << 24, 1 << 28)  # the sizes the capstone's distance to the floor is read at
SWEEP = [1 << k for k in range(10, 31)]
BASE_STAGE = 7
CAPSTONE_NUMBER = 14
CAPSTONE = f"Stage {CAPSTONE_NUMBER}"  # the capstone's rows, as the harness names them
BASELINES = ["bench_cub", "bench_read", "bench_launch", "bench_copy"]
PAIRS = 5
# What a run measured (the rest of a saved row is derived again when runs are merged).
RAW_KEYS = ("name", "executable", "n", "block", "gpu_ms", "gbps", "relative_error", "match")
BEGIN = "<!-- bench:begin (written by scripts/bench.py) -->"
END = "<!-- bench:end -->"
# The sentence on stage 14 against CUB, from the pairs (README and the capstone's lesson).
CLAIM_BEGIN = "<!-- bench-claim:begin (written by scripts/bench.py) -->"
CLAIM_END = "<!-- bench-claim:end -->"


def stage_folders(reg):
    """{'07': 'stage07_interleaved', ...}: each stage's folder (its lesson), from the registry."""
    return {f"{s.number:02d}": s.folder for s in reg.stages}


def stage_number(name):
    """14 for a row named 'Stage 14' (the harness's name for a stage's rows); None otherwise."""
    head, _, number = name.partition(" ")
    return int(number) if head == "Stage" and number.isdigit() else None


def sum_stages(descriptions):
    """The Stages of every sum on the path to the capstone, by number: the table compares
    each with CUB's sum. Stages 15 to 17 compute something else; stage 19 calls the library
    itself and stage 05 times a kernel whose input the host copy has just left in L2; their
    lessons and docs/measurements.md hold their own measurements. `descriptions`:
    {Stage: its --describe} (course.gpu.answer_descriptions)."""
    return [stage for stage, d in descriptions.items()
            if d["operation"] == "sum" and stage.number <= CAPSTONE_NUMBER]


def capstone_of(descriptions):
    """The capstone's Stage among the answers described; a Stop where the build lacks it."""
    found = next((s for s in descriptions if s.number == CAPSTONE_NUMBER), None)
    if found is None:
        raise Stop(f"bench.py: error: stage {CAPSTONE_NUMBER}'s answer is not built here; run "
                   "scripts/bench.sh", 1)
    return found


def measure(executable, n, repeat, dirty, block, extra=()):
    """One run of an executable (a Stage or a baseline's name) with --csv; its row as a dict."""
    return run_csv(executable, ["--n", n, "--block", block, "--repeat", repeat, *extra]
                   + (["--dirty-l2"] if dirty else []))


def size_name(n):
    return f"2^{n.bit_length() - 1}"


def work(n):
    """What one run at n costs, in runs at small n, for the time left: the process, its
    input and its CPU reference grow with n (a run at 2^30 takes some nine times one at 2^20)."""
    return 1 + n / (1 << 27)


def unverified(row):
    """A run that did not match is said at once, not only in the table at the end."""
    if not row["match"]:
        print(f"bench: {row['name']} at n = {size_name(row['n'])} did not verify", flush=True)


def run_all(executables, sizes, repeat_for, dirty, block, progress=None):
    """executables: (a Stage or a baseline's name, extra options) in the order they run at
    each n. One progress line per size."""
    if progress is None:
        progress = Progress("bench")
        progress.plan(len(sizes) * len(executables),
                      sum(work(n) for n in sizes) * len(executables))
    rows = []
    for n in sizes:
        for executable, extra in executables:
            row = measure(executable, n, repeat_for(n), dirty, block, extra)
            rows.append(row)
            unverified(row)
        progress.step(len(executables), work(n) * len(executables), f" (n = {size_name(n)})")
    return rows


def pair_runs(count, sizes):
    """How many runs run_pairs makes after a sweep of `sizes` (whose own pair is the first)."""
    return 2 * (count - 1) * len(sizes)


def run_pairs(rows, capstone, count, repeat_for, dirty, block, progress=None):
    """Stage 14 (`capstone`: its Stage) and CUB as `count` alternated process pairs at every
    n of the sweep; the sweep's own two runs (adjacent processes, stage 14 first) are the
    first pair. One progress line per size."""
    executables = {floors.CAPSTONE: capstone, floors.CUB: "bench_cub"}
    sizes = sorted({r["n"] for r in rows})
    if progress is None:
        progress = Progress("bench")
        progress.plan(pair_runs(count, sizes), sum(work(n) for n in sizes) * 2 * (count - 1))
    pairs = []
    for n in sizes:
        swept = {r["name"]: r for r in rows if r["n"] == n and r["name"] in executables}
        if len(swept) == 2:
            pairs.append({"n": n, "pair": 1, "first": floors.CAPSTONE,
                          "capstone_ms": swept[floors.CAPSTONE]["gpu_ms"],
                          "cub_ms": swept[floors.CUB]["gpu_ms"], "match": True})
        else:  # no pair in the sweep at this n: all `count` pairs are run here
            progress.plan(2, 2 * work(n))
        runs = 0
        for index in range(len(swept) == 2, count):
            got = {}
            for name in floors.pair_order(index):
                got[name] = measure(executables[name], n, repeat_for(n), dirty, block)
                unverified(got[name])
                runs += 1
            pairs.append({"n": n, "pair": index + 1, "first": floors.pair_order(index)[0],
                          "capstone_ms": got[floors.CAPSTONE]["gpu_ms"],
                          "cub_ms": got[floors.CUB]["gpu_ms"],
                          "match": got[floors.CAPSTONE]["match"] and got[floors.CUB]["match"]})
        if runs:
            progress.step(runs, runs * work(n), f" (pairs, n = {size_name(n)})")
    return pairs


def summary_table(rows, n):
    """Rows at n with the speedups the results page shows beside them."""
    at_n = [dict(r) for r in rows if r["n"] == n]
    by_name = {r["name"]: r for r in at_n}
    base, previous = by_name.get(f"Stage {BASE_STAGE}"), None
    for r in at_n:
        is_stage = r["name"].startswith("Stage ")
        r["speedup_prev"] = previous["gpu_ms"] / r["gpu_ms"] if is_stage and previous else None
        r["speedup_base"] = base["gpu_ms"] / r["gpu_ms"] if is_stage and base else None
        if is_stage:
            previous = r
    return at_n


def fmt(value, pattern):
    return "" if value is None else pattern.format(value)


def us(ms):
    return f"{ms * 1000:.1f}" if ms >= 0.1 else f"{ms * 1000:.2f}"


def markdown_table(table):
    lines = ["| stage | GPU time (us) | GB/s | x limit | x floor | x CUB | vs previous stage "
             "| vs stage 07 | verified |", "|---|---|---|---|---|---|---|---|---|"]
    for r in table:
        lines.append(
            f"| {r['name']} | {us(r['gpu_ms'])} | {r['gbps']:.1f} | {fmt(r.get('x_limit'), '{:.2f}')} "
            f"| {fmt(r['x_floor'], '{:.2f}')} "
            f"| {fmt(r['x_cub'], '{:.2f}')} | {fmt(r['speedup_prev'], '{:.2f}x')} "
            f"| {fmt(r['speedup_base'], '{:.2f}x')} | {'yes' if r['match'] else 'NO'} |")
    return "\n".join(lines)


def sweep_table(rows, names, key, pattern):
    sizes = sorted({r["n"] for r in rows})
    lines = ["| n | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for n in sizes:
        cells = []
        for name in names:
            match = [r for r in rows if r["n"] == n and r["name"] == name]
            cells.append(fmt(match[0].get(key), pattern) if match else "")
        lines.append(f"| 2^{n.bit_length() - 1} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def capstone_table(rows, summary):
    """Stage 14 against CUB and both references at every n: the numbers its lesson is judged
    by, with the alternated pairs' ratio (median [min, max]) and what it lets us claim."""
    pairs = {e["n"]: e for e in summary}
    lines = ["| n | limit (us) | best read (us) | stage 14 (us) | CUB (us) | stage 14 x limit "
             "| stage 14 x best read | CUB x best read | stage 14 / CUB, pairs | claim |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for n in sorted({r["n"] for r in rows}):
        cap = [r for r in rows if r["n"] == n and r["name"] == CAPSTONE]
        cub = [r for r in rows if r["n"] == n and r["name"] == "CUB"]
        if not cap or not cub or cap[0]["floor_ms"] is None:
            continue
        c, b = cap[0], cub[0]
        entry = pairs.get(n)
        limit = us(c["limit_ms"]) if c.get("limit_ms") else ""
        ratio = f"{floors.ratio_text(entry)} ({entry['pairs']})" if entry else ""
        lines.append(f"| 2^{n.bit_length() - 1} | {limit} | {us(c['floor_ms'])} | {us(c['gpu_ms'])} "
                     f"| {us(b['gpu_ms'])} | {fmt(c.get('x_limit'), '{:.3f}')} | {c['x_floor']:.3f} "
                     f"| {b['x_floor']:.3f} | {ratio} | {entry['verdict'] if entry else ''} |")
    return "\n".join(lines)


def capstone_verdict(rows, summary, refs):
    """How stage 14 stands against CUB (from the pairs) and the references."""
    cap = {r["n"]: r for r in rows if r["name"] == CAPSTONE and r["x_floor"] is not None}
    if not cap:
        return []
    lines = ["- " + floors.claim(summary, MAIN_N)]
    for n in FLOOR_CHECK_N:
        if n in cap:
            limit = fmt(cap[n].get("x_limit"), "{:.3f} x the physical limit, ")
            lines.append(f"- At n = 2^{n.bit_length() - 1}: {limit}"
                         f"{cap[n]['x_floor']:.3f} x the best read.")
    return lines + floors.beaten_lines(refs or {})


def plot(table, rows, summary, path, block):
    """Left: time over the best read at 2^24 (x limit as dots). Middle: bandwidth against n,
    with the physical limit and the best read as black lines. Right: stage 14 / CUB per n
    from the pairs, the median and the range as an error bar, 1 as a line."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(20, 5.5))
    shown = [r for r in table if r["x_floor"] is not None and r["name"] != "launch"]
    names = [r["name"].replace("Stage ", "") for r in shown]
    colors = ["#888888" if not r["name"].startswith("Stage ") else "#2a7ab9" for r in shown]
    left.bar(names, [r["x_floor"] for r in shown], color=colors, label="x best read")
    limits = [(name, r["x_limit"]) for name, r in zip(names, shown) if r.get("x_limit")]
    if limits:
        left.plot([name for name, _ in limits], [x for _, x in limits], "k.", label="x limit")
    left.axhline(1.0, color="black", linewidth=1)
    left.set_title(f"Time over the best read, n = 2^24 (block {block})")
    left.set_xlabel("stage")
    left.set_ylabel("time / reference (1 = the reference)")
    left.tick_params(axis="x", labelsize=7)
    left.legend(fontsize=8)
    palette = plt.get_cmap("tab20").colors
    for index, name in enumerate(r["name"] for r in table):
        if name == "launch" or floors.is_read(name):
            continue
        # 4n bytes / time for every line, the copy included (its own GB/s counts the bytes
        # it writes too), so that each line sits under the references it is measured against.
        series = sorted((r["n"], 4 * r["n"] / (r["gpu_ms"] * 1e6)) for r in rows
                        if r["name"] == name)
        style = "--" if not name.startswith("Stage ") else "-"
        middle.plot([n for n, _ in series], [g for _, g in series], style, marker=".", label=name,
                    color=palette[index % len(palette)])
    refs = {r["n"]: r for r in rows if r["name"] == CAPSTONE and r["floor_ms"]}
    sizes = sorted(refs)
    middle.plot(sizes, [4 * n / (refs[n]["floor_ms"] * 1e6) for n in sizes], color="black",
                linewidth=2, label="best read")
    limited = [n for n in sizes if refs[n].get("limit_ms")]
    if limited:
        middle.plot(limited, [4 * n / (refs[n]["limit_ms"] * 1e6) for n in limited], ":",
                    color="black", linewidth=2, label="physical limit")
    middle.set_xscale("log", base=2)
    middle.set_title("Bandwidth against n (4n bytes / time)")
    middle.set_xlabel("n (floats)")
    middle.set_ylabel("GB/s")
    middle.legend(fontsize=7, ncol=2)
    if summary:
        ns = [e["n"] for e in summary]
        medians = [e["median"] for e in summary]
        below = [m - e["low"] for m, e in zip(medians, summary)]
        above = [e["high"] - m for m, e in zip(medians, summary)]
        right.errorbar(ns, medians, yerr=[below, above], fmt="o", capsize=3, color="#2a7ab9",
                       label="median, [min, max] of the pairs")
        right.axhline(1.0, color="black", linewidth=1)
        right.set_xscale("log", base=2)
        right.legend(fontsize=8)
    right.set_title("Stage 14 / CUB, alternated process pairs")
    right.set_xlabel("n (floats)")
    right.set_ylabel("stage 14 time / CUB time")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def metadata(dirty, launch, block, memory=None, pairs=0):
    return {**machine(), "date": datetime.date.today().isoformat(), "block": block,
            "seed": 12345, "main_n": MAIN_N, "cache": "dirty" if dirty else "clean",
            "launch_us": launch * 1000 if launch is not None else None,
            "floor": "best-read", "pairs": pairs,
            "memory_clock_khz": memory["memory_clock_khz"] if memory else None,
            "bus_width_bits": memory["bus_width_bits"] if memory else None,
            "peak_gbps": memory["peak_gbps"] if memory else None}


def floor_text(meta):
    """What x floor and x limit meant in the run `meta` describes (runs saved before the
    two references had one modelled floor)."""
    if meta.get("floor") != "best-read":
        return ("x floor: time / (empty launch + 4n bytes / read ceiling), this run's modelled "
                "floor; it has no physical limit and no pairs (run scripts/bench.sh for both)")
    limit = (f"empty launch + 4n bytes at {meta['peak_gbps']:.0f} GB/s, the memory's theoretical "
             "bandwidth" if meta.get("peak_gbps") else "not measured (no bench_memory)")
    return (f"x limit: time / physical limit ({limit}); x floor: time / the best measured read "
            "at that n")


CACHE_TEXT = {
    "clean": "the L2 holding nothing of the input and no dirty lines (a write sweep of twice "
             "the L2, then an untimed read sweep of another buffer that size)",
    "dirty": "the L2 full of dirty lines (a write sweep of twice the L2 only, `--dirty-l2`), "
             "which the timed run pays to write back",
}


def references_text(meta):
    if meta.get("floor") != "best-read":
        return (f"The floor (a run saved before the two references): an empty launch of "
                f"{meta['launch_us']:.2f} us plus 4n bytes at the read ceiling of "
                f"{meta['read_ceiling_gbps']:.0f} GB/s.")
    limit = (f"an empty launch ({meta['launch_us']:.2f} us, `bench_launch`, the median over all "
             f"sizes) plus 4n bytes at {meta['peak_gbps']:.0f} GB/s, the memory's theoretical "
             f"bandwidth (`bench_memory`: memory clock {meta['memory_clock_khz']} kHz x bus "
             f"{meta['bus_width_bits']} bits / 8 x 2 transfers per clock). No kernel can beat it"
             if meta.get("peak_gbps") else "not measured (no `bench_memory`)")
    return ("Two references beside every time. **The physical limit** is " + limit + ". **The "
            "best read** (the floor, x floor) is the fastest of `bench_read`'s three kernels "
            "at that n (`--version 1` to `3`: one float4 per thread over as many blocks as "
            "that takes, two float4s per trip over the resident grid, stage 14's 16 KB per "
            "block per trip); where a reduction was faster than every read, its time is the "
            "best read there and the list under the capstone's table says so. Stage 14 against "
            f"CUB is also measured as {meta.get('pairs') or 'no'} alternated process pairs per "
            "size (stage 14 first in odd pairs, CUB first in even ones; the sweep's own two "
            "runs are the first pair): the median of stage 14 / CUB and its range. The claim is "
            "\"at or below CUB\" only where the whole range is at or below 1, \"slower\" "
            "where all of it is above, and a tie otherwise.")


def results_page(meta, table, rows, names, summary=(), refs=None):
    return f"""# Benchmark results

Written by `scripts/bench.sh` (do not edit by hand). Every stage's answer, CUB's
`cub::DeviceReduce::Sum`, the reads, the empty launch and a device-to-device copy, on the
same input (seed {meta['seed']}), block {meta['block']}. Each time is the median of the timed
runs, measured with CUDA events after a warm-up, each run starting with
{CACHE_TEXT[meta['cache']]}; every result was verified against the CPU reference (the copy
against its input) after timing. GB/s counts each input float read once (the copy: bytes
read plus bytes written).

{references_text(meta)} {floor_text(meta)}; x CUB: time / CUB's time at the same n in the
sweep.

- Device: {meta['device']}
- Driver: {meta['driver']}
- CUDA: {meta['cuda']}
- Date: {meta['date']}
- Commit: {meta['commit']}

## n = 2^24 ({meta['main_n']:,} floats, 64 MiB)

{markdown_table(table)}

![time over the best read at 2^24, bandwidth against n with both references, stage 14 / CUB from the pairs](bandwidth.png)

## The capstone against CUB and both references

{capstone_table(rows, summary)}

{chr(10).join(capstone_verdict(rows, summary, refs))}

## Time as a multiple of the best read

{sweep_table(rows, [x for x in names if x not in ('launch', 'copy')], 'x_floor', '{:.2f}')}

## Time as a multiple of the physical limit

{sweep_table(rows, [x for x in names if x not in ('launch', 'copy')], 'x_limit', '{:.2f}')}

## Time as a multiple of CUB's

{sweep_table(rows, [x for x in names if x not in ('launch', 'copy', 'CUB')], 'x_cub', '{:.2f}')}

## Bandwidth (GB/s) against n

{sweep_table(rows, [x for x in names if x != 'launch'], 'gbps', '{:.0f}')}

Raw numbers: [results.csv](results.csv), [pairs.csv](pairs.csv), [results.json](results.json).

Max, softmax and layer norm (stages 15 to 17) have their own yardsticks and are measured by
`scripts/bench.sh --operations`: [operations.md](operations.md). Stage 18 on one GPU against
two, and the NCCL all-reduce: `scripts/bench.sh --multi-gpu`, [multi_gpu.md](multi_gpu.md).
Hardware counters:
[counters.md](counters.md).
"""


def readme_table(table, dirs, meta):
    lines = [BEGIN,
             f"Measured by `scripts/bench.sh` on {meta['device']} (CUDA {meta['cuda']}, driver "
             f"{meta['driver']}, {meta['date']}): n = 2^24 floats, block {meta['block']}, each run "
             f"starting from a clean L2. {floor_text(meta)}. Full results: "
             "[docs/results](docs/results/README.md).",
             "",
             "| stage | lesson | GPU time | GB/s | x limit | x floor | x CUB |",
             "|---|---|---|---|---|---|---|"]
    for r in table:
        if r["name"] == "launch":
            continue
        if stage_number(r["name"]) is not None:
            number = f"{stage_number(r['name']):02d}"
            lesson = f"[{dirs.get(number, '')}](stages/{dirs.get(number, '')}/README.md)"
        else:
            number, lesson = r["name"], "baseline"
        lines.append(f"| {number} | {lesson} | {us(r['gpu_ms'])} us | {r['gbps']:.1f} "
                     f"| {fmt(r.get('x_limit'), '{:.2f}') or '-'} | {fmt(r['x_floor'], '{:.2f}')} "
                     f"| {fmt(r['x_cub'], '{:.2f}')} |")
    lines.append(END)
    return "\n".join(lines)


def lesson_block(row, meta):
    """The numbers a stage's lesson quotes, in Korean, between its bench markers."""
    prev = fmt(row["speedup_prev"], "{:.2f}배")
    limit = fmt(row.get("x_limit"), "{:.2f}배") or "-"
    return "\n".join([
        BEGIN,
        f"`scripts/bench.sh`의 측정 ({meta['device']}, CUDA {meta['cuda']}, {meta['date']}; "
        f"n = 2^24, 블록 {meta['block']}, 매 실행 전 L2를 깨끗이 비움):",
        "",
        "| GPU 시간 | 대역폭 | 물리 한계 대비 | 바닥 대비 | CUB 대비 | 이전 단계 대비 |",
        "|---|---|---|---|---|---|",
        f"| {us(row['gpu_ms'])} us | {row['gbps']:.1f} GB/s | {limit} "
        f"| {fmt(row['x_floor'], '{:.2f}')}배 "
        f"| {fmt(row['x_cub'], '{:.2f}')}배 | {prev or '-'} |",
        END])


def claim_block(summary, meta, korean=False):
    """The sentence on stage 14 against CUB between the claim markers (from the pairs)."""
    text = floors.claim_ko(summary, MAIN_N) if korean else floors.claim(summary, MAIN_N)
    source = (f"({meta['device']}, {meta['date']})" if summary else "")
    return "\n".join([CLAIM_BEGIN, f"{text} {source}".rstrip(), CLAIM_END])


def replace_block(path, text, write=True, begin=BEGIN, end=END):
    """Puts text between the file's markers; returns whether that changes the file (None
    when the file has no markers)."""
    content = path.read_text()
    if begin not in content or end not in content:
        return None
    head, rest = content.split(begin, 1)
    _, tail = rest.split(end, 1)
    changed = head + text + tail != content
    if write and changed:
        path.write_text(head + text + tail)
    return changed


def update_docs(table, reg, meta, summary=(), write=True):
    """Refreshes the README's table and claim and each lesson's (the lessons of `reg`, the
    stage registry); returns the files that differed."""
    differed = []
    readme = ROOT / "README.md"
    changed = replace_block(readme, readme_table(table, stage_folders(reg), meta), write)
    if changed is None:
        print("README.md has no bench markers; left unchanged", file=sys.stderr)
    claimed = replace_block(readme, claim_block(summary, meta), write, CLAIM_BEGIN, CLAIM_END)
    if changed or claimed:
        differed.append(readme)
    for r in table:
        stage = reg.get(stage_number(r["name"])) if stage_number(r["name"]) is not None else None
        if stage and replace_block(stage.lesson, lesson_block(r, meta), write):
            differed.append(stage.lesson)
    capstone = reg.get(CAPSTONE_NUMBER)
    lesson = capstone.lesson if capstone else None
    if lesson and lesson.is_file() and replace_block(
            lesson, claim_block(summary, meta, korean=True), write, CLAIM_BEGIN, CLAIM_END):
        if lesson not in differed:
            differed.append(lesson)
    return differed


def shown(path):
    """A path as the messages give it: relative to the repository where it is inside."""
    try:
        return str(pathlib.Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def measured_stages(saved):
    """The stage numbers a saved run's table holds (its rows 'Stage 7', ...)."""
    return sorted({stage_number(r["name"]) for r in saved["summary"]} - {None})


def rewrite_docs(path, check):
    """The tables between the bench markers, from a saved run: one source for every number.
    With check, changes nothing and exits 1 if a table differs from the saved run, 77 (one
    line, ctest's skip) where this tree lacks a stage the run measured: a partial student
    edition (export_student.sh --stages 6-10) keeps the README's table of every stage."""
    if not path.is_file():
        print(f"bench.py: error: {path} does not exist; run scripts/bench.sh", file=sys.stderr)
        return 2
    saved = json.loads(path.read_text())
    reg = docs_registry(check)
    lacking = [n for n in measured_stages(saved) if reg.get(n) is None]
    if lacking:
        listed = ", ".join(f"{n:02d}" for n in lacking)
        if check:
            print(f"bench.py: {shown(path)} measured stage{'s' * (len(lacking) > 1)} {listed}, "
                  f"which this tree does not have (stages {reg.listing()}): its tables are not "
                  "checked here")
            return 77
        raise Stop(f"bench.py: error: {shown(path)} measured stage{'s' * (len(lacking) > 1)} "
                   f"{listed}, which this tree does not have (stages {reg.listing()}): the "
                   "README's table would link to missing lessons, so nothing was rewritten", 2)
    differed = update_docs(saved["summary"], reg, saved["meta"], saved.get("pair_summary", []),
                           write=not check)
    source = (f"{shown(path)} ({saved['meta']['device']}, {saved['meta']['date']}, "
              f"commit {saved['meta']['commit']})")
    if check:
        for file in differed:
            print(f"{shown(file)}: its bench table differs from {source}; run "
                  "scripts/bench.sh --docs-only")
        return 1 if differed else 0
    print(f"README.md and the lessons' tables rewritten from {source}")
    return 0


def docs_registry(check):
    """The registry the docs are rewritten or checked against. The check runs under ctest,
    in a configured build: it reads that build's registry and never configures one
    (REDUCE_BUILD_DIR names the build where it is not build/)."""
    return stage_registry.load(build.build_dir(), "bench.py") if check else registry("bench.py")


def operation_stages(descriptions):
    """{Stage: its --describe} of the stages that are not sums (15 to 17): what
    --operations measures."""
    return {stage: d for stage, d in descriptions.items() if d["operation"] != "sum"}


def tree_operations(reg):
    """{number: [version numbers]} of this tree's stages that --operations measures."""
    built = {stage: stage.description() for stage in reg.stages if stage.built}
    return {stage.number: [v for v, _ in describe.versions(d)]
            for stage, d in operation_stages(built).items()}


def rewrite_operations_docs(folder, check):
    """operations.md and the operations blocks of the lessons and the details pages (between
    operations_bench.BEGIN and END) from the run saved in `folder` (operations.csv,
    operations.json): one source for every number. With check, changes nothing and exits 1
    with one line per file that differs (for the page, its first line that does), 77 (one
    line, ctest's skip) where the saved run cannot be checked against this tree: it predates
    operations.json, or lacks a stage or a version this tree has."""
    saved_csv = folder / operations_bench.CSV_FILE
    if not saved_csv.is_file():
        print(f"bench.py: error: {shown(saved_csv)} does not exist; run scripts/bench.sh "
              "--operations", file=sys.stderr)
        return 2
    reg = docs_registry(check)
    try:
        rows, run = operations_bench.load(folder)
        operations_bench.check_covers(run, tree_operations(reg))
    except operations_bench.Stale as why:
        if check:
            print(f"bench.py: the saved operations run ({shown(saved_csv)}) {why}: rerun "
                  "scripts/bench.sh --operations on a GPU")
            return 77
        raise Stop(f"bench.py: error: the saved operations run ({shown(saved_csv)}) {why}, so "
                   "nothing was rewritten: rerun scripts/bench.sh --operations on a GPU", 2)
    meta = run["meta"]
    source = (f"{shown(folder / operations_bench.JSON_FILE)} ({meta['device']}, {meta['date']}, "
              f"commit {meta['commit']})")
    differed = page_differs(folder / operations_bench.PAGE_FILE,
                            operations_bench.page(rows, run), source, not check)
    pages = [(operations_bench.lesson_blocks(rows, run), lambda stage: stage.lesson),
             (operations_bench.details_blocks(rows, run), lambda stage: stage.details)]
    for blocks, page_of in pages:
        for number, text in blocks.items():
            stage = reg.get(number)
            path = page_of(stage) if stage else None
            if path and path.is_file() and replace_block(
                    path, text, not check, operations_bench.BEGIN, operations_bench.END):
                differed.append(f"{shown(path)}: its operations block differs from {source}")
    if check:
        for line in differed:
            print(f"{line}; run scripts/bench.sh --operations --docs-only")
        return 1 if differed else 0
    print(f"{shown(folder / operations_bench.PAGE_FILE)} and the operations blocks of the "
          f"lessons and details pages rewritten from {source}")
    return 0


def page_differs(path, text, source, write):
    """[one line saying where the page at `path` first differs from `text`], [] where it
    does not; with write, puts `text` there."""
    if not path.is_file():
        line = f"{shown(path)} does not exist ({source} makes it)"
    else:
        where = operations_bench.first_difference(text, path.read_text())
        line = f"{shown(path)}: {where} differs from {source}" if where else None
    if line and write:
        path.write_text(text)
    return [line] if line else []


def run_steps(out, block):
    """docs/results/stage14_steps.md: what each of stage 14's techniques buys."""
    done = subprocess.run([str(BIN / "experiment_stage14_steps")], capture_output=True, text=True)
    if done.returncode != 0:
        print(f"bench.py: experiment_stage14_steps exited {done.returncode}: "
              f"{done.stderr.strip()}", file=sys.stderr)
        return 1
    meta = metadata(False, None, block)
    out.mkdir(parents=True, exist_ok=True)
    (out / "stage14_steps.md").write_text(f"""# Stage 14, one technique at a time

Written by `scripts/bench.sh --steps` (do not edit by hand), which runs
`build/bin/experiment_stage14_steps` ([its source](../../bench/experiments/stage14_steps.cu)). Each
row adds one technique to the row above, and the last rows take one back out of stage 14
(or try one it does not keep); every row and CUB ran in the same process, block
{meta['block']}, input seed {meta['seed']}, each run starting from a clean L2 (as in the benchmark),
the median of 301 runs up to 2^20 and of 50 above, every result verified after timing.
Below two chunks the steps before the last still take the ticket path with two blocks.

- Device: {meta['device']}
- Driver: {meta['driver']}
- CUDA: {meta['cuda']}
- Date: {meta['date']}
- Commit: {meta['commit']}

{done.stdout.strip()}
""")
    print(done.stdout.strip())
    return 0


def parse_sizes(text):
    low, _, high = text.partition("-")
    low, high = int(low), int(high or low)
    if not 0 <= low <= high <= 30:
        raise argparse.ArgumentTypeError("sizes are log2 n from 0 to 30, e.g. 24 or 20-24")
    return [1 << k for k in range(low, high + 1)]


def parser():
    found = argparse.ArgumentParser(prog="scripts/bench.sh", description=__doc__.splitlines()[0])
    found.add_argument("--build-first", action="store_true", help=argparse.SUPPRESS)
    found.add_argument("--quick", action="store_true", help="n = 2^24 only, 5 repeats")
    found.add_argument("--sizes", type=parse_sizes, help="log2 n, one or a range: 24, 20-24")
    found.add_argument("--pairs", type=int, default=PAIRS, choices=range(1, 51), metavar="P",
                       help=f"alternated process pairs of stage 14 and CUB per size (default "
                       f"{PAIRS}, the sweep's own pair included)")
    found.add_argument("--dirty-l2", action="store_true",
                       help="start each timed run with the L2 full of dirty lines")
    found.add_argument("--out", default=None, help="default docs/results for the full sweep, "
                       "docs/results/dirty-l2 with --dirty-l2, the build folder's bench/ for "
                       "--quick or --sizes")
    found.add_argument("--merge", nargs="+", metavar="DIR",
                       help="no measuring: join the results.json of partial runs (--sizes ... "
                       "--out DIR) into one, written like a sweep of their sizes together "
                       "(the full sweep's sizes: docs/results, the README and the lessons)")
    found.add_argument("--docs-only", action="store_true",
                       help="rewrite the README's and the lessons' tables from docs/results/"
                       "results.json (with --operations: operations.md and the lessons' "
                       "operations blocks from operations.csv and .json); no GPU, nothing "
                       "measured")
    found.add_argument("--check-docs", action="store_true",
                       help="exit 1 if a README or lesson table differs from results.json "
                       "(77, skipped, where this tree lacks a stage it measured); with "
                       "--operations: operations.md and the lessons' and details pages' "
                       "operations blocks against operations.csv and .json (77 where that "
                       "run predates operations.json or lacks a stage or version of this "
                       "tree)")
    found.add_argument("--steps", action="store_true",
                       help="only stage 14's techniques one at a time: docs/results/"
                       "stage14_steps.md")
    found.add_argument("--lessons", action="store_true",
                       help="only the lessons' experiments (every block size, the variants, "
                       "the -G build): docs/results/lessons.md")
    found.add_argument("--operations", action="store_true",
                       help="only stages 15 to 17 (max, softmax, layer norm) against CUB's max, "
                       "the physical limit and the best read or copy: docs/results/"
                       "operations.md")
    found.add_argument("--multi-gpu", action="store_true",
                       help="only stage 18 on 1 and 2 GPUs and the NCCL all-reduce: docs/"
                       "results/multi_gpu.md")
    return found


def bench_block(descriptions):
    """The block every measurement uses: the capstone's default, as its --describe says
    (default_block: the harness's, 256)."""
    return descriptions[capstone_of(descriptions)]["default_block"]


def main(argv):
    args = parser().parse_args(argv)
    if (args.docs_only or args.check_docs) and args.operations:
        return rewrite_operations_docs(ROOT / "docs" / "results", check=args.check_docs)
    if args.docs_only or args.check_docs:
        return rewrite_docs(ROOT / "docs" / "results" / "results.json", check=args.check_docs)
    if args.merge:
        return merge(args, [pathlib.Path(d) / "results.json" for d in args.merge])
    require_answers("bench.py")  # before a build the student edition would make for nothing
    if args.build_first:
        # The lessons' variants are not part of `all`: only --lessons needs them, and the
        # student edition has none.
        lessons = args.lessons and not registry("bench.py").student_edition
        build_first("the benchmark needs a GPU, so nothing was measured",
                    ["lesson_variants"] if lessons else ())
    require_device("bench.py", "the benchmark needs a GPU, so nothing was measured")
    descriptions = answer_descriptions()
    block = bench_block(descriptions)
    out = pathlib.Path(args.out) if args.out else None
    if args.steps:
        return run_steps(out or ROOT / "docs" / "results", block)
    if args.lessons:
        chosen = {stage: descriptions[stage] for stage in sum_stages(descriptions)}
        return run_lessons(chosen, metadata(False, None, block), out or ROOT / "docs" / "results")
    if args.multi_gpu:
        return multi_gpu(descriptions, out, block)
    if args.operations:
        folder = out or ROOT / "docs" / "results"
        code = run_operations(operation_stages(descriptions), metadata(False, None, block), folder)
        if out is None:  # the lessons quote the run saved in docs/results
            rewrite_operations_docs(folder, check=False)
        return code
    return sweep(args, sum_stages(descriptions), capstone_of(descriptions), block)


def multi_gpu(descriptions, out, block):
    """Stage 18 (the answer whose --describe says kind multi_gpu) against the capstone."""
    spread = next((s for s, d in descriptions.items() if d["kind"] == "multi_gpu"), None)
    if spread is None or not all((BIN / t).exists() for t in ("bench_allreduce", "reduce_ranks")):
        unbuilt = [s for s in registry().stages if "nccl" in s.needs and not s.built]
        why = (build.unbuilt_line(unbuilt[0], "configure again") if unbuilt else
               "the multi-GPU stage, bench_allreduce and reduce_ranks are not built: CMake "
               "found no NCCL (install it, e.g. apt install libnccl-dev, or set NCCL_ROOT, "
               "and configure again)")
        raise Stop(f"bench.py: error: {why}", 1)
    return run_multi_gpu(capstone_of(descriptions), spread, metadata(False, None, block),
                         out or ROOT / "docs" / "results")


def sweep(args, stages, capstone, block):
    """The benchmark itself: every sum stage (`stages`, Stages) and the baselines at every
    size, then stage 14 (`capstone`) and CUB in alternated process pairs."""
    executables = ([(stage, ()) for stage in stages] + [(b, ()) for b in BASELINES]
                   + [("bench_read", ("--version", v)) for v in floors.READ_VERSIONS])
    unbuilt = missing([e for e, _ in executables] + ["bench_memory"])
    if unbuilt:
        raise Stop(f"bench.py: error: {', '.join(unbuilt)} not built; run scripts/bench.sh", 1)
    sizes = [MAIN_N] if args.quick else (args.sizes or SWEEP)
    # Small sizes get many runs: their times are a few microseconds, and the median of a
    # few dozen moves by the timer's step; large ones take long enough to settle sooner.
    repeat = lambda n: 5 if args.quick else (301 if n <= 1 << 20 else 50 if n <= MAIN_N else 20)
    memory = memory_peak()
    # One line per size: the sweep's runs, then the pairs' (the sweep's own pair the first).
    progress = Progress("bench")
    progress.plan(len(sizes) * len(executables), sum(map(work, sizes)) * len(executables))
    progress.plan(pair_runs(args.pairs, sizes), sum(map(work, sizes)) * 2 * (args.pairs - 1))
    rows = run_all(executables, sizes, repeat, args.dirty_l2, block, progress)
    pairs = run_pairs(rows, capstone, args.pairs, repeat, args.dirty_l2, block, progress)
    return conclude(args, sizes, rows, pairs, memory, block)


def conclude(args, sizes, rows, pairs, memory, block, meta=None):
    """From the measured rows and pairs: the references, the table, the results and the
    summary printed; exit 1 if a run did not verify."""
    refs = floors.references(rows, memory)
    floors.derive(rows, refs)
    summary = floors.pair_summary(pairs)
    main_n = MAIN_N if MAIN_N in sizes else sizes[-1]
    table = summary_table(rows, main_n)
    meta = meta or metadata(args.dirty_l2, floors.launch_ms(rows), block, memory, args.pairs)
    write_results(args, sizes, rows, table, meta, pairs, summary, refs)
    print()
    print(f"{meta['device']}, n = 2^{main_n.bit_length() - 1}, block {block}, {meta['cache']} L2")
    print(markdown_table(table))
    for line in capstone_verdict(rows, summary, refs):
        print(line)
    failures = [r for r in rows if not r["match"]] + [p for p in pairs if not p["match"]]
    if failures:
        print(f"{len(failures)} runs did not verify", file=sys.stderr)
        return 1
    return 0


def merge(args, paths):
    """Partial runs of one machine (scripts/bench.sh --sizes A-B --out DIR), joined as if
    they were one sweep: two commands that each fit a time limit instead of one that does
    not. Each n must come from one run only."""
    saved = []
    for path in paths:
        if not path.is_file():
            raise Stop(f"bench.py: error: {path} does not exist; run scripts/bench.sh --sizes "
                       "A-B --out DIR first", 2)
        saved.append(json.loads(path.read_text()))
    devices = {s["meta"]["device"] for s in saved}
    if len(devices) > 1:
        raise Stop(f"bench.py: error: the runs are from different devices: {sorted(devices)}", 2)
    per_run = [{r["n"] for r in s["runs"]} for s in saved]
    sizes = sorted(set().union(*per_run))
    if len(sizes) != sum(len(each) for each in per_run):
        raise Stop("bench.py: error: two of the runs measured the same n; merge runs of "
                   "different --sizes", 2)
    rows = [{k: v for k, v in r.items() if k in RAW_KEYS} for s in saved for r in s["runs"]]
    pairs = [p for s in saved for p in s.get("pairs", [])]
    meta = dict(saved[0]["meta"])
    memory = ({"peak_gbps": meta["peak_gbps"]} if meta.get("peak_gbps") else None)
    meta["launch_us"] = floors.launch_ms(rows) * 1000 if floors.launch_ms(rows) else None
    meta["commit"] = ",".join(sorted({s["meta"]["commit"] for s in saved}))
    args.dirty_l2 = meta["cache"] == "dirty"
    args.quick = False
    return conclude(args, sizes, rows, pairs, memory, meta["block"], meta)


def write_results(args, sizes, rows, table, meta, pairs, summary, refs):
    """results.csv, pairs.csv, results.json, the chart and the results page; after the full
    clean sweep, the README's and the lessons' tables and claims too."""
    # A partial clean run goes to the build folder: docs/results/ holds the full sweep.
    partial = args.quick or sizes != SWEEP
    default_out = (ROOT / "docs" / "results" / "dirty-l2" if args.dirty_l2
                   else BIN.parent / "bench" if partial else ROOT / "docs" / "results")
    out = pathlib.Path(args.out) if args.out else default_out
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "results.csv", rows, list(rows[0].keys()))
    write_csv(out / "pairs.csv", pairs, ["n", "pair", "first", "capstone_ms", "cub_ms", "match"])
    (out / "results.json").write_text(json.dumps(
        {"meta": meta, "summary": table, "pair_summary": summary,
         "references": {str(n): ref for n, ref in refs.items()}, "runs": rows, "pairs": pairs},
        indent=1) + "\n")
    try:
        plot(table, rows, summary, out / "bandwidth.png", meta["block"])
    except ImportError:
        print("matplotlib is not installed: no chart written", file=sys.stderr)
    (out / "README.md").write_text(results_page(meta, table, rows, [r["name"] for r in table],
                                                summary, refs))
    if sizes == SWEEP and not args.dirty_l2 and args.out is None:
        update_docs(table, registry("bench.py"), meta, summary)


if __name__ == "__main__":
    run_main(main, "bench.py")
