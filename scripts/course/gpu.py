"""What the measuring modules (bench, counters and the benchmark's parts) share: where the
build is, stopping with one line when there is no CUDA device to measure on, what each
answer computes, one --csv run of an executable, and the floor model."""
import csv
import os
import re
import statistics
import subprocess

from course import build, describe, report, stages
from course.cli import Stop

ROOT = stages.ROOT
BIN = build.bin_dir()


def build_first(without_gpu, also=()):
    """What scripts/bench.sh and counters.sh do before measuring: build everything (and the
    targets `also`, which are not part of it), then say which device they measure on, or
    stop with 3 and one line when there is none."""
    build.configure_and_build()
    if also:
        build.configure_and_build(also)
    found, device = build.probe()
    if not found:
        raise Stop(f"{device}: {without_gpu}.", 3)
    print(device, flush=True)


def require_device(script, without_gpu):
    """Exits 3 with one line when no CUDA device is usable, 4 when nothing is built."""
    probe_path = BIN / "reduce_probe"
    if not probe_path.exists():
        raise Stop(f"{script}: error: {probe_path} is not built; run scripts/{script[:-3]}.sh", 4)
    found, device = build.probe()
    if not found:
        raise Stop(f"{script}: {device}: {without_gpu}.", 3)


def require_answers(script):
    """Exits 2 with one line in the student edition, which has no answers/ to measure."""
    if stages.student_edition():
        raise Stop(f"{script}: error: this measures the reference answers in answers/, which the "
                   "student edition leaves out; time your own stage with scripts/run.sh --todo N", 2)


def described(executable):
    return describe.describe_or_stop(BIN / executable)


def answer_descriptions():
    """{'07': description, ...} for every answer's executable: what each computes (its
    operation) and how it is called. The benchmark's table and the counters compare sums
    with CUB's sum and pass --n, which the row stages refuse."""
    return {f"{n:02d}": described(f"stage{n:02d}") for n in stages.numbers()
            if stages.folder(n) and (ROOT / "answers" / stages.folder(n)).is_dir()}


def run_csv(executable, options):
    """One run of build/bin/<executable> with --csv and the given options; its line as a
    dict (name, executable, n, block, gpu_ms, gbps, relative_error, match)."""
    command = [str(BIN / executable), *map(str, options), "--csv"]
    done = subprocess.run(command, capture_output=True, text=True)
    row = report.csv_line(done.stdout)
    if done.returncode not in (0, 1) or row is None:
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()}")
    typed = report.typed_csv_row(row)
    return {"name": typed.pop("name"), "executable": executable, **typed}


def memory_peak():
    """The physical limit's bandwidth: bench_memory's memory clock (kHz) and bus width (bits)
    and the theoretical GB/s they give (course/floors.py, peak_gbps)."""
    from course.floors import peak_gbps
    command = [str(BIN / "bench_memory"), "--csv"]
    done = subprocess.run(command, capture_output=True, text=True)
    fields = done.stdout.strip().split(",")
    if done.returncode != 0 or len(fields) != 4 or fields[0] != "memory":
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()}")
    clock_khz, bus_bits = int(fields[1]), int(fields[2])
    return {"memory_clock_khz": clock_khz, "bus_width_bits": bus_bits,
            "peak_gbps": peak_gbps(clock_khz, bus_bits)}


def floor_model(rows):
    """The empty launch (ms), the read ceiling (GB/s) and floor(n) in ms, from the rows of
    bench_launch ('launch') and bench_read ('read'); None without both."""
    launches = [r["gpu_ms"] for r in rows if r["name"] == "launch"]
    reads = [r for r in rows if r["name"] == "read"]
    if not launches or not reads:
        return None
    launch_ms = statistics.median(launches)
    rates = [4 * r["n"] / ((r["gpu_ms"] - launch_ms) * 1e6) for r in reads
             if r["gpu_ms"] > launch_ms]
    if not rates:
        return None
    ceiling = max(rates)
    return {"launch_ms": launch_ms, "ceiling_gbps": ceiling,
            "at": lambda n: launch_ms + 4 * n / (ceiling * 1e6)}


def write_csv(path, rows, fields=None):
    """rows (dicts) to a CSV file; the columns are `fields`, else every key, sorted."""
    fields = fields or sorted({key for r in rows for key in r})
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def tool_output(command):
    try:
        return subprocess.run(command, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def machine():
    """The device, driver, CUDA release and course commit a measurement (or a grading) ran
    with, 'unknown' where a tool does not say."""
    smi = tool_output(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
    gpu, _, driver = smi.partition(", ")
    nvcc = re.search(r"release ([0-9.]+)", tool_output(["nvcc", "--version"]))
    commit = os.environ.get("BENCH_COMMIT") or tool_output(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"]) or "unknown"
    return {"device": gpu.splitlines()[0] if gpu else "unknown",
            "driver": driver.splitlines()[0] if driver else "unknown",
            "cuda": nvcc.group(1) if nvcc else "unknown", "commit": commit}
