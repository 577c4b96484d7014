"""Stage 18 (many GPUs, one sum) on 1 GPU against 2, and the all-reduce of a whole vector,
run by `scripts/bench.sh --multi-gpu` (bench.py --multi-gpu).

Scaling: stage 18 at n = 2^28, 2^29, 2^30 and 2^31 - 1 with --gpus 1 and, where the
machine shows two GPUs or more, --gpus 2; speedup = time on 1 / time on 2 and scaling
efficiency = speedup / 2. Beside them stage 14 (the capstone alone, one GPU, no NCCL) and
the one-GPU floor (empty launch + 4n bytes / read ceiling, from bench_launch and bench_read
in the same run). Each time is the median of the process's timed runs, from a clean L2 on
every GPU, timed from the first GPU's start to the last GPU's end; every GPU's total is
verified after timing.

All-reduce: build/bin/bench_allreduce over every visible GPU, 1 MiB to 1 GiB per GPU,
algorithm and bus bandwidth as nccl-tests reports them, and on two GPUs the hand-written
peer copy and add beside NCCL.

One process per GPU: where two GPUs show, reduce_ranks --ranks 2 (stage 18's sum with a
process on each GPU, joined by NCCL) at the same sizes, against stage 18 in one process on
the same two GPUs; the target is at most 10% slower at every size. Writes
docs/results/multi_gpu.md and multi_gpu.csv.
"""
import subprocess

from course import build, report
from course.gpu import BIN, Progress, floor_model, run_csv, write_csv

SIZES = [1 << 28, 1 << 29, 1 << 30, (1 << 31) - 1]
REPEAT = 20
TARGET_N = 1 << 30
TARGET_SPEEDUP = 1.8
# The scaling rows' parts besides the launch and the read: the capstone alone on one GPU
# (stage 14) and the multi-GPU stage (stage 18); their executable is the target's name.
CAPSTONE, SPREAD = "capstone", "spread"
# Stage 18 with one process per GPU (common/multi_gpu/ranks_main.cu), and how much slower
# than one process it may be.
RANKS, RANKS_TARGET = "ranks", 1.10


def visible_gpus():
    """How many CUDA devices reduce_probe lists (CUDA_VISIBLE_DEVICES applies)."""
    _, device = build.probe()
    return sum(1 for line in device.splitlines() if line.startswith("CUDA device "))


def size_name(n):
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else f"2^{n.bit_length()} - 1"


def measure_scaling(capstone, spread, gpus, block, progress):
    """`capstone` (stage 14) and `spread` (stage 18): their Stages, run by the registry's
    files. The rows' part: launch, read, capstone (stage 14 alone) or spread (stage 18 on
    `gpus` GPUs)."""
    rows = []
    options = lambda n: ["--n", n, "--block", block, "--repeat", REPEAT]
    rows.append(dict(run_csv("bench_launch", options(SIZES[0])), part="launch", gpus=1))
    counts = (1, 2) if gpus >= 2 else (1,)
    for n in SIZES:
        rows.append(dict(run_csv("bench_read", options(n)), part="read", gpus=1))
        rows.append(dict(run_csv(capstone, options(n)), part=CAPSTONE, gpus=1))
        for k in counts:
            rows.append(dict(run_csv(spread, options(n) + ["--gpus", k]), part=SPREAD, gpus=k))
        if gpus >= 2:
            rows.append(dict(run_csv("reduce_ranks", options(n) + ["--ranks", 2]), part=RANKS,
                             gpus=2))
        progress.step(2 + len(counts) + (gpus >= 2) + (n == SIZES[0]),
                      note=f" (scaling, n = {size_name(n)})")
    return rows


def scaling_runs(gpus):
    return 1 + len(SIZES) * (2 + (3 if gpus >= 2 else 1))


def measure_all_reduce(gpus, progress):
    """bench_allreduce's --csv rows as dicts (bytes, gpus, nccl_ms, ..., peer_match)."""
    command = [str(BIN / "bench_allreduce"), "--gpus", str(gpus), "--repeat", str(REPEAT), "--csv"]
    done = subprocess.run(command, capture_output=True, text=True)
    rows = report.csv_table(done.stdout, "bytes")
    if done.returncode not in (0, 1) or not rows:
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()}")
    progress.step(note=" (all-reduce)")
    return rows


def us(ms):
    return f"{ms * 1000:.1f}"


def mark(row):
    return "" if row["match"] else " ✗"


def scaling_row(rows, part, n, gpus=1):
    """The scaling run of `part` at n on `gpus` GPUs."""
    return next(r for r in rows if r["part"] == part and r["n"] == n and r["gpus"] == gpus)


def scaling_table(rows, model, gpus):
    lines = ["| n | floor, 1 GPU (us) | stage 14 (us) | stage 18, 1 GPU (us) | x floor | GB/s "
             "| stage 18, 2 GPUs (us) | GB/s | speedup | scaling efficiency |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for n in SIZES:
        one, capstone = scaling_row(rows, SPREAD, n), scaling_row(rows, CAPSTONE, n)
        floor = model["at"](n) if model else None
        cells = [size_name(n), us(floor) if floor else "", us(capstone["gpu_ms"]) + mark(capstone),
                 us(one["gpu_ms"]) + mark(one),
                 f"{one['gpu_ms'] / floor:.2f}" if floor else "", f"{one['gbps']:.0f}"]
        if gpus >= 2:
            two = scaling_row(rows, SPREAD, n, 2)
            speedup = one["gpu_ms"] / two["gpu_ms"]
            cells += [us(two["gpu_ms"]) + mark(two), f"{two['gbps']:.0f}", f"{speedup:.2f}x",
                      f"{speedup / 2:.0%}"]
        else:
            cells += ["not run", "", "", ""]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def ranks_section(rows, gpus):
    """reduce_ranks --ranks 2 against stage 18 in one process on two GPUs, and the verdict."""
    if gpus < 2:
        return "This machine shows one GPU, so one process per GPU was not run."
    lines = ["| n | stage 18, one process (us) | reduce_ranks, two processes (us) | x one process |",
             "|---|---|---|---|"]
    missed = []
    for n in SIZES:
        one, ranks = scaling_row(rows, SPREAD, n, 2), scaling_row(rows, RANKS, n, 2)
        ratio = ranks["gpu_ms"] / one["gpu_ms"]
        if ratio > RANKS_TARGET:
            missed.append(f"{size_name(n)} ({ratio:.2f}x)")
        lines.append(f"| {size_name(n)} | {us(one['gpu_ms'])}{mark(one)} | "
                     f"{us(ranks['gpu_ms'])}{mark(ranks)} | {ratio:.2f} |")
    bound = f"at most {RANKS_TARGET:.2f}x at every n"
    held = f"{bound}: met" if not missed else f"{bound}: missed at " + ", ".join(missed)
    return "\n".join(lines) + f"\n\nTarget: {held}."


def all_reduce_table(rows):
    two = rows and rows[0]["gpus"] == 2
    head = "| bytes per GPU | NCCL (us) | algbw (GB/s) | busbw (GB/s) | verified |"
    rule = "|---|---|---|---|---|"
    if two:
        head += " peer copy + add (us) | algbw (GB/s) | busbw (GB/s) | verified | NCCL speedup |"
        rule += "---|---|---|---|---|"
    lines = [head, rule]
    for r in rows:
        size = r["bytes"]
        name = f"{size >> 30} GiB" if size >= 1 << 30 else f"{size >> 20} MiB"
        cells = [name, us(r["nccl_ms"]), f"{r['nccl_algbw']:.1f}", f"{r['nccl_busbw']:.1f}",
                 "yes" if r["nccl_match"] else "NO"]
        if two:
            cells += [us(r["peer_ms"]), f"{r['peer_algbw']:.1f}", f"{r['peer_busbw']:.1f}",
                      "yes" if r["peer_match"] else "NO", f"{r['peer_ms'] / r['nccl_ms']:.2f}x"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def verdict(rows, gpus):
    if gpus < 2:
        return ("This machine shows one GPU, so the two-GPU column and the peer-copy version were "
                f"not run; the target (at least {TARGET_SPEEDUP}x on two GPUs at "
                f"{size_name(TARGET_N)}) is not measured here.")
    one, two = scaling_row(rows, SPREAD, TARGET_N), scaling_row(rows, SPREAD, TARGET_N, 2)
    speedup = one["gpu_ms"] / two["gpu_ms"]
    held = "met" if speedup >= TARGET_SPEEDUP else f"missed by {TARGET_SPEEDUP - speedup:.2f}x"
    return (f"At {size_name(TARGET_N)}, two GPUs took {us(two['gpu_ms'])} us against "
            f"{us(one['gpu_ms'])} us on one: {speedup:.2f}x (target {TARGET_SPEEDUP}x: {held}).")


def page(meta, scaling, all_reduce, model, gpus):
    floor = (f"The one-GPU floor: an empty launch of {model['launch_ms'] * 1000:.2f} us plus 4n "
             f"bytes at {model['ceiling_gbps']:.0f} GB/s (bench_launch and bench_read, this run)."
             if model else "No floor: bench_launch or bench_read did not run.")
    k = all_reduce[0]["gpus"] if all_reduce else gpus
    return f"""# Stage 18: one GPU against two, and the all-reduce

Written by `scripts/bench.sh --multi-gpu` (do not edit by hand; [the script](../../scripts/course/multi_gpu_bench.py)).
Input seed {meta['seed']}, block {meta['block']}. Stage 18 is timed from the first GPU's start
event to the last GPU's end (`common/multi_gpu/span_timer.h`), each run starting from a clean L2 on
every GPU; the median of {REPEAT} timed runs after a warm-up; every GPU's total verified
against the CPU after timing. ✗ marks a run that did not match.

- Device: {meta['device']} ({gpus} visible)
- Driver: {meta['driver']}
- CUDA: {meta['cuda']}
- Date: {meta['date']}
- Commit: {meta['commit']}

## Scaling: stage 18 on 1 and 2 GPUs

Stage 14 is the capstone alone on one GPU (no NCCL, no span over devices); stage 18 on one
GPU adds a one-rank `ncclAllReduce` and the span's cross-stream events. Speedup = stage 18
on 1 GPU / on 2 GPUs; scaling efficiency = speedup / 2. {floor}

{scaling_table(scaling, model, gpus)}

{verdict(scaling, gpus)}

## One process per GPU

`build/bin/reduce_ranks --ranks 2` runs stage 18's sum with one process on each GPU, joined
by an NCCL communicator, as a job launcher would start it. Each rank lines the ranks up
with a one-float all-reduce, then times its shard's sum and the all-reduce between its own
two events, from a clean L2; rank 0 reports the median of {REPEAT} runs after a warm-up, and
every run's total is checked. The timed all-reduce, and the line-up before each timed run,
run on a blocking communicator split from the rank's non-blocking one: a non-blocking enqueue
takes longer than the shard's sum, and the GPU would wait for it inside the timed span
([measurements](../measurements.md)). Beside it, stage 18 in one process on the same two
GPUs (the table above).

{ranks_section(scaling, gpus)}

## All-reduce of a whole vector on {k} GPU{'s' if k != 1 else ''}

`build/bin/bench_allreduce --gpus {k}`: `ncclAllReduce` (float, sum, out of place) of the
same number of bytes on every GPU, median of {REPEAT} after 3 warm-ups, L2 not flushed; every
result checked value by value after timing. algbw = bytes / time; busbw = algbw x 2(k-1)/k,
the bytes each GPU's links carry in a ring, as nccl-tests reports it (0 on one GPU, where
nothing crosses a link). On two GPUs the hand-written version beside it: each GPU copies
the other's vector (`cudaMemcpyPeerAsync`), then adds the two.

{all_reduce_table(all_reduce)}
"""


def run_multi_gpu(capstone, spread, meta, out):
    """`capstone`: stage 14's Stage; `spread`: the multi-GPU stage's (18), from the registry."""
    gpus = visible_gpus()
    progress = Progress("bench")
    progress.plan(scaling_runs(gpus) + 1)
    scaling = measure_scaling(capstone, spread, gpus, meta["block"], progress)
    all_reduce = measure_all_reduce(min(gpus, 2) if gpus >= 2 else 1, progress)
    model = floor_model([r for r in scaling if r["part"] in ("launch", "read")])
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "multi_gpu.csv", scaling)
    write_csv(out / "multi_gpu_allreduce.csv", all_reduce, list(all_reduce[0]))
    text = page(meta, scaling, all_reduce, model, gpus)
    (out / "multi_gpu.md").write_text(text)
    print(text)
    wrong = [r for r in scaling if not r["match"]]
    wrong += [r for r in all_reduce if not r["nccl_match"] or (r["peer_ms"] >= 0 and not r["peer_match"])]
    return 1 if wrong else 0
