"""The pristine student edition, built once, and each student's build made from a copy of
it. The edition is written by course/export.py, as export_student.sh writes it (pristine harness, tests and hints),
configured and built at the sandbox's fixed path, so that every copy, seen at that same
path inside its own sandbox, is a valid build tree in which only the student's todo.cu
files are compiled again and linked.

Every stage fact comes from a registry (course/registry.py): the course's own build's
(build/stages.json: which stages there are, their folders, answers, hints and rules) and
the edition's (its build's stages.json: what that build made and its targets, seen at the
sandbox's fixed path)."""
import hashlib
import os
import pathlib
import shutil
import subprocess

from course import build as course_build, colab, registry
from course import export as edition
from course.cli import Stop
from course.gpu import tool_output
from course.grade import sandbox as isolation

ROOT = registry.ROOT
PROGRAM = "grade.sh"
MISTAKES_ARCHITECTURE = "75-virtual"  # no GPU to build for: the cheapest that compiles


def course_registry():
    """The course's own registry (this repository's build; REDUCE_BUILD_DIR respected): the
    stages --stages may name, their folders, answers, hints, lessons and allow-lists."""
    return course_build.registry(PROGRAM)


class Edition:
    """The pristine edition at `path` and its build in path/build, as its own registry
    (path/build/stages.json) describes it; the targets' paths are those the sandboxed steps
    see (the build at the fixed path)."""

    def __init__(self, path):
        self.path = pathlib.Path(path)
        self.registry = registry.load(self.path / "build", PROGRAM,
                                      seen_at=isolation.FIXED / "build")
        self.folders = {s.number: s.folder for s in self.registry.stages}

    def stage(self, number):
        return self.registry.stage(number, PROGRAM)

    def has_suite(self, number):
        """Whether this build made the stage and its template's suite (a stage it could not
        make, such as the many-GPU stage without NCCL, has only a stand-in executable)."""
        stage = self.stage(number)
        return stage.built and stage.has_target(registry.TEMPLATE_TESTS)

    def template(self, number):
        """The stage's pristine todo.cu, as the edition ships it."""
        return (self.path / "stages" / self.stage(number).folder / "todo.cu").read_text(
            encoding="utf-8")

    def local_exe(self, number):
        """The stage's template executable at the edition's own path (for steps run outside
        the sandbox, such as --describe)."""
        return self.stage(number).exe(template=True, build_dir=self.path / "build")


def targets(edition, number):
    """What one stage of a student needs: its executable and, where the build makes one,
    its GPU suite (CMake target names, from the edition's registry)."""
    stage = edition.stage(number)
    suite = [stage.target(registry.TEMPLATE_TESTS)] if edition.has_suite(number) else []
    return [stage.target(registry.TEMPLATE)] + suite


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
    key, key_file = edition_key(numbers), pathlib.Path(work) / "pristine.key"
    if key_file.exists() and key_file.read_text() == key and \
            (path / "build" / "bin" / "reduce_probe").exists() and \
            (path / "build" / registry.FILE).exists():
        return Edition(path)
    key_file.unlink(missing_ok=True)
    export(path, numbers)
    logs = pathlib.Path(work) / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    fixed = str(isolation.FIXED)
    configure = ["cmake", "-S", fixed, "-B", fixed + "/build", *course_build.generator(path / "build"),
                 "-DCMAKE_BUILD_TYPE=Release",
                 f"-DCMAKE_CUDA_ARCHITECTURES={architectures()}", *googletest(path)]
    # The instructor's own tree: network allowed (GoogleTest may be fetched once).
    code, _ = isolation.run(sandbox, configure, path, logs / "pristine-configure.log",
                            limits["build"], network=True)
    if code != 0:
        raise Stop(f"grade.sh: error: the pristine edition did not configure (see "
                   f"{logs / 'pristine-configure.log'})", 4)
    edition = Edition(path)  # the registry its configure wrote
    wanted = ["reduce_probe", "bench_memory"] + [t for n in numbers for t in targets(edition, n)]
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
    # Niced: a performance measurement runs beside the builds (the GPU is its own, the cores
    # are not), and its process start, input and CPU sum must not wait for the compilers.
    command = ["nice", "-n", "10", *build_command(targets(edition, number), jobs)]
    code, text = isolation.run(sandbox, command, work, log, limits["build"], memory_bytes=memory)
    return code == 0, text


def peak_gbps(edition):
    """The GPU memory's theoretical bandwidth in GB/s, from the pristine build's bench_memory
    (2 x memory clock x bus width / 8), or None where it did not run."""
    exe = edition.path / "build" / "bin" / "bench_memory"
    try:
        done = subprocess.run([str(exe), "--csv"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    fields = done.stdout.strip().split(",")
    if done.returncode != 0 or len(fields) != 4 or fields[0] != "memory":
        return None
    return float(fields[3])


def probe(edition):
    """(found, the probe's line: the device, or why there is none)."""
    exe = edition.path / "build" / "bin" / "reduce_probe"
    try:
        done = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        return False, f"reduce_probe did not run: {error}"
    return done.returncode == 0, (done.stdout.strip().splitlines() or [""])[0]
