"""Hardware counters for every answer stage, from Nsight Compute.

Profiles build/bin/stageNN --n 16777216 --repeat 1 (a warm-up run and one timed run; the
row stages, 16 on, take their default 16384 x 1024 matrix, the same 2^24 floats) with
`ncu --csv --clock-control none`, keeps the kernels of the first run, and prints one
table: kernel time, DRAM throughput, bytes read and written, achieved occupancy, branch
uniformity, shared-memory bank conflicts, instructions executed and warp execution
efficiency (all lanes an instruction was issued for, and only those not predicated off).
Sums are over the run's kernels; percentages are those of its longest kernel. Writes
counters.csv and counters.md under docs/results/ (or --out).

    scripts/counters.sh            (builds first, then profiles)

scripts/counters.sh runs `python3 -m course.counters --build-first`; without that flag it
profiles a build that is already there.
Exit code: 0 done, 3 no CUDA device, 4 build error or ncu missing.
"""
import argparse
import csv
import datetime
import io
import pathlib
import shutil
import subprocess

from course import describe
from course.cli import Stop, run_main
from course.gpu import (ROOT, Progress, answer_descriptions, build_first, machine,
                        require_answers, require_device, write_csv)

N = 1 << 24
METRICS = {
    "time": "gpu__time_duration.sum",
    "dram_pct": "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram_read": "dram__bytes_read.sum",
    "dram_write": "dram__bytes_write.sum",
    "occupancy": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "branch_uniform": "smsp__sass_average_branch_targets_threads_uniform.pct",
    "bank_ld": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "bank_st": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "instructions": "smsp__inst_executed.sum",
    "threads_per_inst": "smsp__thread_inst_executed_per_inst_executed.ratio",
    "threads_pred_on": "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio",
}
COLUMNS = [
    ("stage", "stage"), ("kernels", "kernels"), ("time_us", "kernel time (us)"),
    ("dram_pct", "DRAM throughput (% of peak)"), ("dram_read_mb", "DRAM read (MB)"),
    ("dram_write_mb", "DRAM write (MB)"),
    ("occupancy", "achieved occupancy (%)"), ("branch_uniform", "branch uniformity (%)"),
    ("bank_conflicts", "shared bank conflicts (ld + st)"), ("instructions", "instructions"),
    ("warp_efficiency", "warp execution efficiency (%, lanes not predicated off)"),
    ("lanes_issued", "lanes issued (%)"),
]


def number(text):
    """ncu's CSV writes 67,113,728 for large values."""
    return float(text.replace(",", "")) if text not in ("", "n/a") else 0.0


def profile(stage, takes_matrix):
    """`stage`: a Stage; its answer's executable (the registry's) is profiled."""
    # Stages 06-14 name their kernels reduce_*, stage 15 max_* (and argmax_*, which runs once
    # after the timed runs, so the halving below still keeps the warm-up run's kernels),
    # stage 16 softmax_*, stage 17 layer_norm_*.
    shape = [] if takes_matrix else ["--n", str(N)]  # a row stage's default matrix holds N floats
    command = ["ncu", "--csv", "--clock-control", "none", "-k",
               "regex:reduce_|max_|softmax_|layer_norm_", "--metrics",
               ",".join(METRICS.values()), str(stage.exe()), *shape, "--repeat", "1"]
    done = subprocess.run(command, capture_output=True, text=True)
    lines = done.stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if done.returncode != 0 or start is None:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): "
                           f"{done.stderr.strip()[-400:]}")
    kernels = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        kernels.setdefault(int(row["ID"]), {})[row["Metric Name"]] = number(row["Metric Value"])
    ordered = [kernels[k] for k in sorted(kernels)]
    return ordered[: max(1, len(ordered) // 2)]  # the warm-up run; the timed run repeats it


def summarise(stage, kernels):
    longest = max(kernels, key=lambda k: k[METRICS["time"]])
    total = lambda key: sum(k[METRICS[key]] for k in kernels)
    return {
        "stage": stage,
        "kernels": len(kernels),
        "time_us": total("time") / 1000.0,
        "dram_pct": longest[METRICS["dram_pct"]],
        "dram_read_mb": total("dram_read") / 1e6,
        "dram_write_mb": total("dram_write") / 1e6,
        "occupancy": longest[METRICS["occupancy"]],
        "branch_uniform": longest[METRICS["branch_uniform"]],
        "bank_conflicts": int(total("bank_ld") + total("bank_st")),
        "instructions": int(total("instructions")),
        "warp_efficiency": 100.0 * longest[METRICS["threads_pred_on"]] / 32.0,
        "lanes_issued": 100.0 * longest[METRICS["threads_per_inst"]] / 32.0,
    }


def cell(key, value):
    if key in ("stage", "kernels"):
        return str(value)
    if key in ("bank_conflicts", "instructions"):
        return f"{value:,}"
    return f"{value:.1f}"


def main(argv):
    parser = argparse.ArgumentParser(prog="scripts/counters.sh",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--build-first", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", default=str(ROOT / "docs" / "results"))
    args = parser.parse_args(argv)
    require_answers("counters.py")  # before a build the student edition would make for nothing
    if args.build_first:
        build_first("the counters need a GPU, so nothing was profiled")
        if not shutil.which("ncu"):
            raise Stop("counters.sh: error: ncu (Nsight Compute) is not on PATH; it ships with "
                       "the CUDA toolkit", 4)
    require_device("counters.py", "the counters need a GPU, so nothing was profiled")
    rows = []
    descriptions = answer_descriptions()
    progress = Progress("counters", "stages")
    progress.plan(len(descriptions))
    for stage, description in descriptions.items():
        rows.append(summarise(f"{stage.number:02d}",
                              profile(stage, describe.takes_rows(description))))
        progress.step(note=f" (stage {stage.number:02d} profiled)")
    measured = {**machine(), "date": datetime.date.today().isoformat()}
    write_tables(rows, pathlib.Path(args.out), measured)
    return 0


def write_tables(rows, out, measured):
    """counters.csv and counters.md under out, and the table on stdout; `measured` names the
    device, driver, CUDA release, course commit and date (gpu.machine() and the day)."""
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "counters.csv", rows, [key for key, _ in COLUMNS])
    header = "| " + " | ".join(title for _, title in COLUMNS) + " |"
    table = [header, "|" + "---|" * len(COLUMNS)]
    table += ["| " + " | ".join(cell(k, r[k]) for k, _ in COLUMNS) + " |" for r in rows]
    (out / "counters.md").write_text(
        "# Hardware counters per stage\n\n"
        f"- Device: {measured['device']} (driver {measured['driver']}, CUDA {measured['cuda']})\n"
        f"- Course commit: {measured['commit']}; measured {measured['date']}\n\n"
        "Written by `scripts/counters.sh`: Nsight Compute (`ncu --csv --clock-control none`) on\n"
        f"`build/bin/stageNN --n {N} --repeat 1` (stages 16 and 17: their default 16384 x 1024\n"
        "matrix, the same number of floats, at their default version), block 256, the kernels\n"
        "of one run. Sums over the run's kernels; percentages from its longest kernel. Warp\n"
        "execution efficiency counts only the lanes that did the work:\n"
        "`smsp__thread_inst_executed_pred_on_per_inst_executed.ratio` / 32, the lanes whose\n"
        "predicate let each instruction run. Lanes issued is\n"
        "`smsp__thread_inst_executed_per_inst_executed.ratio` / 32, every lane an instruction was\n"
        "issued for, including lanes an `if` turned off by predicate: it stays near 100 % even\n"
        "when most lanes idle. Metrics: "
        + ", ".join(f"`{m}`" for m in METRICS.values()) + ".\n\n" + "\n".join(table) + "\n")
    print()
    print("\n".join(table))


if __name__ == "__main__":
    run_main(main, "counters.py")
