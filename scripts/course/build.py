"""Configure, build, probe the device, run ctest and check for NCCL: the one copy every
script uses. The build folder is build/ (the CMake presets' folder) unless REDUCE_BUILD_DIR
names another, e.g. REDUCE_BUILD_DIR=out for a build made by `cmake -S . -B out`."""
import os
import subprocess
import sys

from course import describe, stages
from course.cli import Stop

ROOT = stages.ROOT


def build_name():
    """The build folder as the user named it (relative to the repository), for messages."""
    return os.environ.get("REDUCE_BUILD_DIR", "build").rstrip("/") or "/"


def build_dir():
    return (ROOT / build_name()).resolve()


def bin_dir():
    return build_dir() / "bin"


def uses_presets():
    # Any other folder than the presets' is configured and tested directly.
    return build_dir() == (ROOT / "build").resolve()


def configure_command():
    if uses_presets():
        return ["cmake", "--preset", "default"]
    return ["cmake", "-S", str(ROOT), "-B", str(build_dir()), "-DCMAKE_BUILD_TYPE=Release"]


def build_command(targets=()):
    chosen = ["--target", *targets] if targets else []
    if uses_presets():
        return ["cmake", "--build", "--preset", "default", *chosen]
    return ["cmake", "--build", str(build_dir()), "-j", "8", *chosen]


def needs_configure():
    """The presets' folder is configured every time (cheap, and it picks up new stages);
    another folder once."""
    return uses_presets() or not (build_dir() / "CMakeCache.txt").exists()


def quietly(command):
    """Runs command with its output kept back; on failure prints it and stops with 4."""
    done = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors="replace")
    if done.returncode != 0:
        sys.stderr.write(done.stdout)
        raise Stop(f"error: '{' '.join(command)}' failed (output above)", 4)


def configure_and_build(targets=()):
    """Configures and builds everything, or only `targets` and what they need, printing one
    line; the tools' output shows only when they fail."""
    shown = " --target " + " ".join(targets) if targets else ""
    if uses_presets():
        print(f"Configuring and building (cmake --preset default; cmake --build --preset "
              f"default{shown}) ...", flush=True)
    else:
        name = build_name()
        print(f"Configuring and building in {name} (cmake -S . -B {name}; cmake --build "
              f"{name}{shown}) ...", flush=True)
    if needs_configure():
        quietly(configure_command())
    quietly(build_command(targets))


def build_logged(targets, log, run_logged):
    """For the student check: configures once, builds `targets`, the tools' output into
    `log`; returns (ok, log text). `run_logged` runs one command into the log."""
    if not (build_dir() / "CMakeCache.txt").exists():
        code, _ = run_logged(configure_command(), log, 900)
        if code != 0:
            raise Stop(f"check.sh: error: CMake could not configure {build_name()} (see {log})", 4)
    code, text = run_logged(build_command(targets), log, 1800)
    return code == 0, text


def probe():
    """(found, what the probe printed: one line per device, or why there is none)."""
    exe = bin_dir() / "reduce_probe"
    if not exe.exists():
        raise Stop(f"error: {exe} is not built; run scripts/test.sh or scripts/run.sh", 4)
    done = subprocess.run([str(exe)], stdout=subprocess.PIPE, text=True)
    return done.returncode == 0, done.stdout.rstrip("\n")


# ctest's selection for each preset, when the folder is not the presets'.
SELECTIONS = {"default": ["-LE", "todo|mistakes", "--output-on-failure"],
              "todo": ["-L", "todo"], "mistakes": ["-L", "mistakes", "--output-on-failure"]}


def ctest_command(preset, extra=()):
    """ctest with one of the presets' test selections, in whichever build folder is in use."""
    if uses_presets():
        return ["ctest", "--preset", preset, *extra]
    return ["ctest", "--test-dir", str(build_dir()), *SELECTIONS[preset], "--no-tests=error",
            "-j", "8", *extra]


def nccl_missing():
    """Whether CMake configured without NCCL (cmake/nccl.cmake records it)."""
    cache = build_dir() / "CMakeCache.txt"
    return cache.exists() and "REDUCE_NCCL_FOUND:INTERNAL=OFF" in cache.read_text(errors="replace")


def needs_nccl(exe):
    """Whether the built stage executable is a multi-GPU stage this build cannot run. Without
    NCCL such a stage is built as a one-line stand-in (common/multi_gpu/needs_nccl.cpp) that exits 4,
    "no NCCL in this build", whatever it is asked; --describe touches no GPU, so no real
    stage executable exits 4 from it."""
    if not nccl_missing():
        return False
    try:
        return describe.describe(exe)["kind"] == "multi_gpu"
    except describe.DescribeError as error:
        return error.code == 4


def nccl_line(number, then):
    return (f"stage {number} needs NCCL (nccl.h and libnccl), which CMake did not find: install "
            f"NCCL (e.g. apt install libnccl-dev) or set NCCL_ROOT, then {then}")
