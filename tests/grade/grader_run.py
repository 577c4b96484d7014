"""What the grader's GPU tests share: the build's CUDA device, and scripts/grade.sh run the
way an instructor would, with --no-sandbox only where the machine has no sandbox."""
import os
import shutil
import subprocess
import sys
import time


def exit_without_device(bin_dir):
    """Ends the test (device_problem's line and code) unless the build sees a CUDA device."""
    problem = device_problem(bin_dir)
    if problem:
        print(problem[1])
        sys.exit(problem[0])


def refused(code, out):
    """Whether grade.sh exited other than 0, said in one line (the results stay in `out`)."""
    if code != 0:
        print(f"scripts/grade.sh exited {code}, not 0 (results in {out})")
    return code != 0


def device_problem(bin_dir):
    """None when the build in `bin_dir`'s parent (whose registry the grader then reads) sees
    a CUDA device; else (exit code, line): 1 unbuilt, 77 (skipped) no device."""
    os.environ["REDUCE_BUILD_DIR"] = str(bin_dir.resolve().parent)
    probe_exe = bin_dir / "reduce_probe"
    if not probe_exe.exists():
        return 1, f"{probe_exe} is not built: build the project first"
    probe = subprocess.run([str(probe_exe)], capture_output=True, text=True)
    if probe.returncode != 0:
        return 77, f"no CUDA device: {probe.stdout.strip()}"
    return None


def grade(command, out):
    """Runs grade.sh `command` (a list), printing what it printed; again with --no-sandbox
    (from a clean `out`) where it found no sandbox. Returns (exit code, seconds it took)."""
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode == 4 and "no sandbox" in done.stderr:
        print("no sandbox on this machine: grading with --no-sandbox", flush=True)
        shutil.rmtree(out, ignore_errors=True)
        started = time.monotonic()
        done = subprocess.run(command + ["--no-sandbox"], capture_output=True, text=True)
    print(done.stdout + done.stderr, flush=True)
    return done.returncode, time.monotonic() - started
