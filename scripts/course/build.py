"""Configure, build, probe the device, run ctest and check for NCCL: the one copy every
script uses. The build folder is build/ (the CMake presets' folder) unless REDUCE_BUILD_DIR
names another, e.g. REDUCE_BUILD_DIR=out for a build made by `cmake -S . -B out`."""
import os
import shutil
import re
import subprocess
import sys
import time
from pathlib import Path

from course import registry as stage_registry
from course.cli import Stop

ROOT = stage_registry.ROOT


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


def generator(folder=None):
    """Ninja for a folder not yet configured, where it is installed and CMAKE_GENERATOR does
    not choose: make builds a library's objects only after the libraries it links have been
    built, ninja compiles every file at once (a first run.sh on a 16-core H100: 129 s with
    make, 38 s with ninja). A configured folder keeps its generator."""
    folder = build_dir() if folder is None else Path(folder)
    if (folder / "CMakeCache.txt").exists() or os.environ.get("CMAKE_GENERATOR"):
        return []
    return ["-G", "Ninja"] if shutil.which("ninja") else []


def configure_command():
    if uses_presets():
        return ["cmake", "--preset", "default", *generator()]
    return ["cmake", "-S", str(ROOT), "-B", str(build_dir()), "-DCMAKE_BUILD_TYPE=Release",
            *generator()]


def build_command(targets=()):
    """Every core compiles: nvcc compiles one file per process, and the presets' eight jobs
    leave half of a 16-core machine idle during a first build."""
    chosen = ["--target", *targets] if targets else []
    jobs = ["-j", str(os.cpu_count() or 8)]
    if uses_presets():
        return ["cmake", "--build", "--preset", "default", *jobs, *chosen]
    return ["cmake", "--build", str(build_dir()), *jobs, *chosen]


def needs_configure():
    """The presets' folder is configured every time (cheap, and it picks up new stages);
    another folder once."""
    return uses_presets() or not (build_dir() / "CMakeCache.txt").exists()


PROGRESS_EVERY_S = 20
# A compile or link step in make's or ninja's output (their percentages count targets, not
# files, and read 100% all through a build of a few targets).
BUILD_STEP = re.compile(r"Building (CUDA|CXX) object|Linking ")


def quietly(command, progress=None):
    """Runs command with its output kept back; on failure prints it and stops with 4. With
    `progress` (a word: "building"), a line every PROGRESS_EVERY_S seconds says how many
    files the tool has compiled, so a first build of a few minutes is not silent."""
    running = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, errors="replace")
    started = last = time.monotonic()
    kept, steps = [], 0
    for line in running.stdout:
        kept.append(line)
        steps += bool(BUILD_STEP.search(line))
        now = time.monotonic()
        if progress and now - last >= PROGRESS_EVERY_S:
            print(f"  {progress}: {steps} files compiled or linked ({now - started:.0f} s)",
                  flush=True)
            last = now
    if running.wait() != 0:
        sys.stderr.write("".join(kept))
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
    quietly(build_command(targets), "building")


def build_logged(targets, log, run_logged):
    """For the student check: configures once, builds `targets`, the tools' output into
    `log`; returns (ok, log text). `run_logged` runs one command into the log."""
    if not (build_dir() / "CMakeCache.txt").exists():
        code, _ = run_logged(configure_command(), log, 900)
        if code != 0:
            raise Stop(f"check.sh: error: CMake could not configure {build_name()} (see {log})", 4)
    code, text = run_logged(build_command(targets), log, 1800)
    return code == 0, text


def probe(in_dir=None, script=None):
    """(found, what the probe printed: one line per device, or why there is none).
    `in_dir`: the bin folder of another build (the corpus's, an instructor's); `script`
    names the caller in the error line and is then told the command that builds the probe,
    which is right however that caller was started."""
    exe = Path(in_dir or bin_dir()) / "reduce_probe"
    if not exe.exists():
        if script is None:
            raise Stop(f"error: {exe} is not built; run scripts/test.sh or scripts/run.sh", 4)
        raise Stop(f"{script}: error: {exe} is not built; build it with `cmake --build "
                   f"{exe.parent.parent} --target reduce_probe`", 4)
    done = subprocess.run([str(exe)], stdout=subprocess.PIPE, text=True)
    return done.returncode == 0, done.stdout.rstrip("\n")


# ctest's selection for each preset, when the folder is not the presets'.
SELECTIONS = {"default": ["-LE", "todo|mistakes|slow", "--output-on-failure"],
              "full": ["-LE", "todo|mistakes", "--output-on-failure"],
              "todo": ["-L", "todo"], "mistakes": ["-L", "mistakes", "--output-on-failure"]}
# What each preset runs that the default build leaves out (CMake targets).
EXTRA_TARGETS = {"todo": ["reduce_todo_suites"], "mistakes": ["reduce_mistakes"]}


def ctest_command(preset, extra=()):
    """ctest with one of the presets' test selections, in whichever build folder is in use."""
    if uses_presets():
        return ["ctest", "--preset", preset, *extra]
    return ["ctest", "--test-dir", str(build_dir()), *SELECTIONS[preset], "--no-tests=error",
            "--resource-spec-file", str(build_dir() / "gpu_resources.json"), "-j", "8", *extra]


def configure_quietly():
    """Configures the build folder, printing one line; the tool's output only on failure."""
    shown = "cmake --preset default" if uses_presets() else f"cmake -S . -B {build_name()}"
    print(f"Configuring ({shown}) ...", flush=True)
    quietly(configure_command())


_loaded = {}  # build folder -> (stages.json's mtime and size, its Registry)


def registry(program=None):
    """The stage registry of the build in use (build/stages.json, course.registry), configuring
    the build first where it never was. Read once, and again when the file changed (a
    configure rewrote it, or a build merged descriptions in)."""
    path = build_dir() / stage_registry.FILE
    if not path.exists():
        configure_quietly()
    info = path.stat()
    stamp = (info.st_mtime_ns, info.st_size)
    kept = _loaded.get(path)
    if kept is None or kept[0] != stamp:
        kept = _loaded[path] = (stamp, stage_registry.load(build_dir(), program))
    return kept[1]


def unbuilt_line(stage, then):
    """One line for a stage this build could not make (its registry entry says why)."""
    fix = ""
    if "nccl" in stage.needs and not registry().nccl:
        fix = ": install NCCL (e.g. apt install libnccl-dev) or set NCCL_ROOT"
    return f"stage {stage.number} {stage.why_not_built}{fix}, then {then}"
