"""What the GPU-only Python scripts (bench.py, counters.py) share: where the build is,
stopping with one line when there is no CUDA device to measure on, one --csv run of an
executable, and the floor model."""
import csv
import os
import pathlib
import re
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The build folder: REDUCE_BUILD_DIR when set (a build configured elsewhere), else build/,
# where scripts/bench.sh and counters.sh make it.
BIN = pathlib.Path(os.environ.get("REDUCE_BUILD_DIR", ROOT / "build")).resolve() / "bin"


def require_device(script, without_gpu):
    """Exits 3 with one line when no CUDA device is usable, 4 when nothing is built."""
    probe_path = BIN / "reduce_probe"
    if not probe_path.exists():
        print(f"{script}: error: {probe_path} is not built; run scripts/{script[:-3]}.sh",
              file=sys.stderr)
        sys.exit(4)
    probe = subprocess.run([str(probe_path)], capture_output=True, text=True)
    if probe.returncode != 0:
        print(f"{script}: {probe.stdout.strip()}: {without_gpu}.", file=sys.stderr)
        sys.exit(3)


def require_answers(script):
    """Exits 2 with one line in the student edition, which has no answers/ to measure."""
    if not (ROOT / "answers").is_dir():
        print(f"{script}: error: this measures the reference answers in answers/, which the "
              "student edition leaves out; time your own stage with scripts/run.sh --todo N",
              file=sys.stderr)
        sys.exit(2)


def answer_operations():
    """{'07': 'Sum', ..., '15': 'Max', '16': 'Softmax', '17': 'LayerNorm'}: what each
    answer's StagePlan computes (common/stage_rules.h's Operation; a plan that names none
    is a sum). The benchmark's table and the counters compare sums with CUB's sum and pass
    --n, which the row stages (16 on) refuse."""
    found = {}
    for path in sorted((ROOT / "answers").glob("stage[0-9][0-9]_*")):
        match = re.search(r"Operation::k(\w+)", (path / "todo.cu").read_text())
        found[path.name[5:7]] = match.group(1) if match else "Sum"
    return found


def run_csv(executable, options):
    """One run of build/bin/<executable> with --csv and the given options; its line as a
    dict (name, n, block, gpu_ms, gbps, relative_error, match)."""
    command = [str(BIN / executable), *map(str, options), "--csv"]
    done = subprocess.run(command, capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if line.count(",") == 6]
    if done.returncode not in (0, 1) or not lines:
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()}")
    name, n_text, block, ms, gbps, error, match = lines[-1].split(",")
    return {"name": name, "executable": executable, "n": int(n_text), "block": int(block),
            "gpu_ms": float(ms), "gbps": float(gbps), "relative_error": error,
            "match": match == "1"}


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
