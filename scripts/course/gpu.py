"""What the measuring modules (bench, counters and the benchmark's parts) share: where the
build is and its stages (the registry), stopping with one line when there is no CUDA device
to measure on, what each answer computes, one --csv run of an executable, the floor model,
and one progress line per step of a long run."""
import csv
import os
import re
import statistics
import subprocess
import time

from course import build, report
from course.progress import Pace
from course import registry as stage_registry
from course.cli import Stop

ROOT = stage_registry.ROOT
# Where the baselines (bench_cub, bench_read, ...) are; a stage's file is its registry's.
BIN = build.bin_dir()

def registry(program=None):
    """The build's stage registry (build/stages.json, or REDUCE_BUILD_DIR's; course.build
    keeps it read once and reads it again after a configure)."""
    return build.registry(program)


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
    if registry(script).student_edition:
        raise Stop(f"{script}: error: this measures the reference answers in answers/, which the "
                   "student edition leaves out; time your own stage with scripts/run.sh --todo N", 2)


def answers():
    """The stages whose answer this build makes, in the registry's order (by number)."""
    return [s for s in registry().stages if s.built and s.has_target(stage_registry.ANSWER)]


def answer_descriptions():
    """{Stage: description} for every answer's executable, by number: what each computes
    (its operation, kind, versions, blocks, default block) and how it is called. The
    benchmark's table and the counters compare sums with CUB's sum and pass --n, which the
    row stages refuse."""
    return {stage: stage.description(template=False) for stage in answers()}


def resolve(executable):
    """(name, file) of what a run calls: a Stage's answer (its CMake target and executable,
    as the registry says) or a baseline by name (build/bin/<name>: bench_cub, ...)."""
    if isinstance(executable, stage_registry.Stage):
        return executable.target(stage_registry.ANSWER), executable.exe()
    return executable, BIN / executable


def missing(executables):
    """The names of those executables (Stages or baselines' names) that are not built."""
    return sorted({name for name, path in map(resolve, executables) if not path.exists()})


def run_csv(executable, options):
    """One run of an executable (a Stage's answer or a baseline's name) with --csv and the
    given options; its line as a dict (name, executable: the target's name, n, block, gpu_ms,
    gbps, relative_error, match)."""
    name, path = resolve(executable)
    command = [str(path), *map(str, options), "--csv"]
    done = subprocess.run(command, capture_output=True, text=True)
    row = report.csv_line(done.stdout)
    if done.returncode not in (0, 1) or row is None:
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()}")
    typed = report.typed_csv_row(row)
    return {"name": typed.pop("name"), "executable": name, **typed}


class Progress(Pace):
    """One line per step of a long run, `bench: 37/240 runs, about 4 min left`, rather than a
    line per measurement. The time left is the pace so far applied to the work still planned
    (course.progress); `work` weighs a step (a run at 2^30 takes longer than one at 2^10),
    1 by default."""

    def __init__(self, program, unit="runs", clock=time.monotonic, out=None):
        super().__init__(clock=clock)
        self.program, self.unit, self.out = program, unit, out

    def step(self, count=1, work=None, note=""):
        """`count` steps done: prints the line (`note` after the count, e.g. ' (n = 2^24)')."""
        self.advance(count, work)
        print(f"{self.program}: {self.done}/{self.total} {self.unit}{note}, {self.left()}",
              file=self.out, flush=True)

    def left(self):
        if self.done >= self.total:
            return f"done in {duration(self.elapsed())}"
        seconds = self.seconds_left()
        return "time left not known yet" if seconds is None else f"about {duration(seconds)} left"


def duration(seconds):
    """'40 s', '4 min', '1 h 5 min': a time as a person would say it (1 s at the least)."""
    seconds = max(1, int(round(seconds)))
    if seconds < 60:
        return f"{seconds} s"
    minutes = int(round(seconds / 60))
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60} min"


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
    return {"device": gpu.splitlines()[0] if gpu else "unknown",
            "driver": driver.splitlines()[0] if driver else "unknown",
            "cuda": nvcc.group(1) if nvcc else "unknown", "commit": course_commit()}


def course_commit():
    """BENCH_COMMIT where set, else HEAD's short hash, marked where the tracked files differ
    from it: a page measured on such a tree must not name a commit that does not hold its
    code (a copied tree can carry an older .git)."""
    named = os.environ.get("BENCH_COMMIT")
    if named:
        return named
    head = tool_output(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"])
    if not head:
        return "unknown"
    try:
        changed = subprocess.run(["git", "-C", str(ROOT), "diff", "--quiet", "HEAD", "--"],
                                 capture_output=True).returncode == 1
    except OSError:
        changed = False
    return f"{head} with uncommitted changes" if changed else head
