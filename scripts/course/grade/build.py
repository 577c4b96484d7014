"""The pristine student edition, built once, and each student's build made from a copy of
it. The edition is written by course/export.py, as export_student.sh writes it (pristine harness, tests and hints),
configured and built at the sandbox's fixed path, so that every copy, seen at that same
path inside its own sandbox, is a valid build tree in which only the student's todo.cu
files are compiled again and linked."""
import hashlib
import os
import pathlib
import shutil
import subprocess

from course import build as course_build, colab, stages
from course import export as edition
from course.cli import Stop
from course.gpu import tool_output
from course.grade import sandbox as isolation

ROOT = stages.ROOT
MISTAKES_ARCHITECTURE = "75-virtual"  # no GPU to build for: the cheapest that compiles


class Edition:
    """The pristine edition at `path` (its build in path/build), its stages' folder names."""

    def __init__(self, path, folders):
        self.path, self.folders = pathlib.Path(path), folders

    @staticmethod
    def bin():
        """The executables' folder as the sandboxed steps see it."""
        return isolation.FIXED / "build" / "bin"

    def nccl_missing(self):
        cache = self.path / "build" / "CMakeCache.txt"
        return "REDUCE_NCCL_FOUND:INTERNAL=OFF" in cache.read_text(errors="replace")


def targets(number, with_suite=True):
    """What one stage of a student needs: its executable and its GPU suite."""
    return [f"stage{number:02d}_todo"] + ([f"todo_stage{number:02d}_tests"] if with_suite else [])


def architectures():
    """The GPU's own architecture when there is one (one compile per file), else the
    cheapest that still finds every compile error."""
    if os.environ.get("CUDAARCHS"):
        return os.environ["CUDAARCHS"]
    capability = colab.compute_capability()
    return capability.replace(".", "") if capability else MISTAKES_ARCHITECTURE


def export(dest, numbers):
    """The student edition of stages min..max (course/export.py) into dest."""
    if dest.exists():
        shutil.rmtree(dest)
    try:
        edition.write_edition(min(numbers), max(numbers), pathlib.Path(dest))
    except Stop as stop:
        raise Stop(f"grade.sh: error: the student edition could not be written: {stop}", 4) from None


def generator():
    return ["-G", "Ninja"] if shutil.which("ninja") else []


def edition_key(numbers):
    """What the pristine build depends on: the course's commit and changes, the stages and
    the architecture. A second run with the same key reuses the build."""
    commit = tool_output(["git", "-C", str(ROOT), "rev-parse", "HEAD"]) or "unknown"
    changes = tool_output(["git", "-C", str(ROOT), "status", "--porcelain"])
    return (f"{commit} {hashlib.sha256(changes.encode()).hexdigest()[:12]} "
            f"{','.join(map(str, numbers))} {architectures()}")


def prepare(sandbox, work, numbers, limits, jobs):
    """Exports, configures and builds the pristine edition (or reuses the one an earlier
    run built from the same course); returns its Edition."""
    path = pathlib.Path(work) / "pristine"
    folders = {n: stages.folder(n) for n in numbers}
    key, key_file = edition_key(numbers), pathlib.Path(work) / "pristine.key"
    if key_file.exists() and key_file.read_text() == key and \
            (path / "build" / "bin" / "reduce_probe").exists():
        return Edition(path, folders)
    key_file.unlink(missing_ok=True)
    export(path, numbers)
    logs = pathlib.Path(work) / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    fixed = str(isolation.FIXED)
    configure = ["cmake", "-S", fixed, "-B", fixed + "/build", *generator(),
                 "-DCMAKE_BUILD_TYPE=Release",
                 f"-DCMAKE_CUDA_ARCHITECTURES={architectures()}", *googletest(path)]
    # The instructor's own tree: network allowed (GoogleTest may be fetched once).
    code, _ = isolation.run(sandbox, configure, path, logs / "pristine-configure.log",
                            limits["build"], network=True)
    if code != 0:
        raise Stop(f"grade.sh: error: the pristine edition did not configure (see "
                   f"{logs / 'pristine-configure.log'})", 4)
    edition = Edition(path, folders)
    wanted = ["reduce_probe"] + [t for n in numbers for t in targets(n, has_suite(edition, n))]
    code, _ = isolation.run(sandbox, build_command(wanted, jobs), path,
                            logs / "pristine-build.log", limits["build"] * 2, network=True)
    if code != 0:
        raise Stop(f"grade.sh: error: the pristine edition did not build (see "
                   f"{logs / 'pristine-build.log'})", 4)
    key_file.write_text(key)
    return edition


def googletest(path):
    """Where the instructor's build fetched GoogleTest (no system copy), a copy of it in the
    edition and the option that makes the edition's configure use it: a GPU host often has
    no network. Nothing where the system has GoogleTest or nothing was fetched."""
    fetched = course_build.build_dir() / "_deps" / "googletest-src"
    if not (fetched / "CMakeLists.txt").exists():
        return []
    shutil.copytree(fetched, path / "_deps-googletest", symlinks=True, dirs_exist_ok=True)
    return [f"-DFETCHCONTENT_SOURCE_DIR_GOOGLETEST={isolation.FIXED / '_deps-googletest'}"]


def has_suite(edition, number):
    """A multi-GPU stage in a build without NCCL has no suite (only a stand-in)."""
    template = (edition.path / "stages" / edition.folders[number] / "todo.cu").read_text()
    return not (edition.nccl_missing() and "StageKind::kMultiGpu" in template)


def build_command(names, jobs):
    return ["cmake", "--build", str(isolation.FIXED / "build"), "-j", str(jobs), "--target", *names]


def student_copy(edition, dest, sources):
    """A copy of the pristine edition and its build at `dest` with the student's files
    (`sources`: {stage folder name: text}) in place of the templates."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(edition.path, dest, symlinks=True)
    for name, text in sources.items():
        (dest / "stages" / name / "todo.cu").write_text(text, encoding="utf-8")


def build_stage(sandbox, edition, work, number, log, limits, jobs):
    """Builds one stage of the copy at `work`; returns (ok, log text)."""
    memory = int(limits["build_memory_gib"] * (1 << 30))
    code, text = isolation.run(sandbox, build_command(targets(number, has_suite(edition, number)),
                                                      jobs), work, log, limits["build"],
                               memory_bytes=memory)
    return code == 0, text


def probe(edition):
    """(found, the probe's line: the device, or why there is none)."""
    exe = edition.path / "build" / "bin" / "reduce_probe"
    try:
        done = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        return False, f"reduce_probe did not run: {error}"
    return done.returncode == 0, (done.stdout.strip().splitlines() or [""])[0]
