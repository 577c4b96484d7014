#!/usr/bin/env python3
"""Benchmarks every answer stage against CUB and a device-to-device copy.

Runs build/bin/stageNN, bench_cub and bench_copy with --csv on the same input (seed
12345), at n = 2^24 and for a sweep from 2^16 to 2^28, block 256. Each executable times
with CUDA events after a warm-up, flushes the L2 before every timed run, reports the
median, and verifies its result after timing. Writes, under docs/results/ (or --out):
results.csv, results.json, bandwidth.png and README.md (the results page), prints the
table, and refreshes the stage table in the top-level README.md between its markers.

    scripts/bench.sh            (builds first; this script expects a build)
    scripts/bench.py --quick    (n = 2^24 only, fewer repeats: a smoke test)
"""
import argparse
import csv
import datetime
import json
import os
import pathlib
import re
import subprocess
import sys

from gpu_script import BIN, ROOT, require_answers, require_device

BLOCK = 256
MAIN_N = 1 << 24
SWEEP = [1 << k for k in range(16, 29)]
BASE_STAGE = "07"
README_BEGIN = "<!-- bench:begin (written by scripts/bench.py) -->"
README_END = "<!-- bench:end -->"


def stage_dirs():
    """{'07': 'stage07_interleaved', ...} for every stage that has an answer."""
    found = {}
    for path in sorted((ROOT / "answers").glob("stage[0-9][0-9]_*")):
        found[path.name[5:7]] = path.name
    return found


def measure(executable, n, repeat):
    """One run of an executable with --csv; returns its row as a dict."""
    command = [str(BIN / executable), "--n", str(n), "--block", str(BLOCK), "--repeat",
               str(repeat), "--csv"]
    done = subprocess.run(command, capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if line.count(",") == 6]
    if done.returncode not in (0, 1) or not lines:
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()}")
    name, n_text, block, ms, gbps, error, match = lines[-1].split(",")
    return {"name": name, "executable": executable, "n": int(n_text), "block": int(block),
            "gpu_ms": float(ms), "gbps": float(gbps), "relative_error": error,
            "match": match == "1"}


def run_all(names, sizes, repeat_for):
    rows = []
    for n in sizes:
        for executable in names:
            row = measure(executable, n, repeat_for(n))
            rows.append(row)
            print(f"  n = {n:>10}  {row['name']:<9} {row['gpu_ms'] * 1000:9.1f} us "
                  f"{row['gbps']:8.1f} GB/s  {'ok' if row['match'] else 'MISMATCH'}",
                  flush=True)
    return rows


def summary_table(rows):
    """Rows at MAIN_N with the derived columns the results page shows."""
    at_main = [r for r in rows if r["n"] == MAIN_N]
    by_name = {r["name"]: r for r in at_main}
    copy, cub = by_name.get("copy"), by_name.get("CUB")
    base = by_name.get(f"Stage {int(BASE_STAGE)}")
    table, previous = [], None
    for row in at_main:
        entry = dict(row)
        entry["pct_of_copy"] = 100.0 * row["gbps"] / copy["gbps"] if copy else None
        entry["vs_cub"] = row["gpu_ms"] / cub["gpu_ms"] if cub else None
        if row["name"].startswith("Stage "):
            entry["speedup_prev"] = previous["gpu_ms"] / row["gpu_ms"] if previous else None
            entry["speedup_base"] = base["gpu_ms"] / row["gpu_ms"] if base else None
            previous = row
        else:
            entry["speedup_prev"] = entry["speedup_base"] = None
        table.append(entry)
    return table


def fmt(value, pattern):
    return "" if value is None else pattern.format(value)


def markdown_table(table):
    lines = ["| stage | GPU time (us) | GB/s | % of copy | vs previous stage | vs stage 07 "
             "| time / CUB | verified |",
             "|---|---|---|---|---|---|---|---|"]
    for r in table:
        lines.append(
            f"| {r['name']} | {r['gpu_ms'] * 1000:.1f} | {r['gbps']:.1f} "
            f"| {fmt(r['pct_of_copy'], '{:.1f}%')} | {fmt(r['speedup_prev'], '{:.2f}x')} "
            f"| {fmt(r['speedup_base'], '{:.2f}x')} | {fmt(r['vs_cub'], '{:.2f}')} "
            f"| {'yes' if r['match'] else 'NO'} |")
    return "\n".join(lines)


def sweep_table(rows, names):
    sizes = sorted({r["n"] for r in rows})
    header = "| n | " + " | ".join(names) + " |"
    lines = [header, "|---|" + "---|" * len(names)]
    for n in sizes:
        cells = []
        for name in names:
            match = [r for r in rows if r["n"] == n and r["name"] == name]
            cells.append(f"{match[0]['gbps']:.0f}" if match else "")
        lines.append(f"| 2^{n.bit_length() - 1} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(table, rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5.5))
    names = [r["name"].replace("Stage ", "") for r in table]
    colors = ["#888888" if r["name"] in ("CUB", "copy") else "#2a7ab9" for r in table]
    left.bar(names, [r["gbps"] for r in table], color=colors)
    left.set_title(f"Bandwidth at n = 2^24 (block {BLOCK})")
    left.set_xlabel("stage")
    left.set_ylabel("GB/s (copy: read + write)")
    palette = plt.get_cmap("tab20").colors
    for index, name in enumerate(r["name"] for r in table):
        series = sorted((r["n"], r["gbps"]) for r in rows if r["name"] == name)
        style = "--" if name in ("CUB", "copy") else "-"
        right.plot([n for n, _ in series], [g for _, g in series], style, marker=".", label=name,
                   color="black" if name == "copy" else palette[(2 * index) % len(palette)])
    right.set_xscale("log", base=2)
    right.set_title("Bandwidth against n")
    right.set_xlabel("n (floats)")
    right.set_ylabel("GB/s")
    right.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def tool_output(command):
    try:
        return subprocess.run(command, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def metadata():
    smi = tool_output(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
    gpu, _, driver = smi.partition(", ")
    nvcc = re.search(r"release ([0-9.]+)", tool_output(["nvcc", "--version"]))
    commit = os.environ.get("BENCH_COMMIT") or tool_output(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"]) or "unknown"
    return {"device": gpu.splitlines()[0] if gpu else "unknown", "driver": driver or "unknown",
            "cuda": nvcc.group(1) if nvcc else "unknown",
            "date": datetime.date.today().isoformat(), "commit": commit, "block": BLOCK,
            "seed": 12345, "main_n": MAIN_N}


def results_page(meta, table, rows, names):
    return f"""# Benchmark results

Written by `scripts/bench.sh` (do not edit by hand). Every stage's answer, CUB's
`cub::DeviceReduce::Sum` and a device-to-device copy, on the same input (seed
{meta['seed']}), block {meta['block']}. Each time is the median of the timed runs, measured
with CUDA events after a warm-up, with the L2 flushed before every run; every result was
verified against the CPU reference (the copy against its input) after timing. GB/s counts
each input float read once; for the copy it counts bytes read plus bytes written, the
memory's practical ceiling.

- Device: {meta['device']}
- Driver: {meta['driver']}
- CUDA: {meta['cuda']}
- Date: {meta['date']}
- Commit: {meta['commit']}

## n = 2^24 ({meta['main_n']:,} floats, 64 MiB)

{markdown_table(table)}

![bandwidth per stage and against n](bandwidth.png)

## Bandwidth (GB/s) against n

{sweep_table(rows, names)}

Raw numbers: [results.csv](results.csv), [results.json](results.json).
"""


def readme_table(table, dirs, meta):
    lines = [README_BEGIN,
             f"Measured by `scripts/bench.sh` on {meta['device']} (CUDA {meta['cuda']}, driver "
             f"{meta['driver']}, {meta['date']}): n = 2^24 floats, block {BLOCK}. "
             "Full results: [docs/results](docs/results/README.md).",
             "",
             "| stage | lesson | GPU time | GB/s | % of copy | time / CUB |",
             "|---|---|---|---|---|---|"]
    for r in table:
        if r["name"].startswith("Stage "):
            number = f"{int(r['name'][6:]):02d}"
            name = dirs.get(number, "")
            lesson = f"[{name}](stages/{name}/README.md)"
        else:
            number, lesson = r["name"], "baseline"
        lines.append(f"| {number} | {lesson} | {r['gpu_ms'] * 1000:.1f} us | {r['gbps']:.1f} "
                     f"| {fmt(r['pct_of_copy'], '{:.1f}%')} | {fmt(r['vs_cub'], '{:.2f}')} |")
    lines.append(README_END)
    return "\n".join(lines)


def update_readme(block_text):
    path = ROOT / "README.md"
    text = path.read_text()
    if README_BEGIN not in text or README_END not in text:
        print("README.md has no bench markers; left unchanged", file=sys.stderr)
        return
    head, rest = text.split(README_BEGIN, 1)
    _, tail = rest.split(README_END, 1)
    path.write_text(head + block_text + tail)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 2^24 only, 5 repeats")
    parser.add_argument("--out", default=str(ROOT / "docs" / "results"))
    args = parser.parse_args()
    require_answers("bench.py")
    require_device("bench.py", "the benchmark needs a GPU, so nothing was measured")

    dirs = stage_dirs()
    executables = [f"stage{number}" for number in dirs] + ["bench_cub", "bench_copy"]
    missing = [e for e in executables if not (BIN / e).exists()]
    if missing:
        sys.exit(f"bench.py: error: {', '.join(missing)} not built; run scripts/bench.sh")

    sizes = [MAIN_N] if args.quick else SWEEP
    rows = run_all(executables, sizes, lambda n: 5 if args.quick else (50 if n <= MAIN_N else 20))
    table = summary_table(rows)
    names = [r["name"] for r in table]
    meta = metadata()

    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "results.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)
    (out / "results.json").write_text(json.dumps({"meta": meta, "summary": table, "runs": rows},
                                                 indent=1) + "\n")
    try:
        plot(table, rows, out / "bandwidth.png")
    except ImportError:
        print("matplotlib is not installed: no chart written", file=sys.stderr)
    (out / "README.md").write_text(results_page(meta, table, rows, names))
    if not args.quick:
        update_readme(readme_table(table, dirs, meta))

    print()
    print(f"{meta['device']}, n = 2^24, block {BLOCK}")
    print(markdown_table(table))
    failures = [r for r in rows if not r["match"]]
    if failures:
        print(f"{len(failures)} runs did not verify", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
