"""The stage registry: the one place the scripts learn what a stage is. CMake reads each
stage folder's stage.json (number, needs, allows), decides what it can build and writes
build/stages.json (cmake/stages.cmake); this module reads that file and merges in what each
built executable says of itself with --describe (kind, versions, default block, ...).
Every script, the student check, the grader and the benchmark get their Stage objects here:
nothing else parses folder names, template text, README rows or CMakeCache.txt for a stage
fact, and nothing else spells a target's name.

    python3 -m course.registry [BUILD_DIR]           print the stages, one line each
    python3 -m course.registry --describe BUILD_DIR  merge every built stage's --describe
                                                     into BUILD_DIR/stages.json (the build step)
"""
import json
import os
import pathlib
import sys
import tempfile

from course import describe as describing
from course.cli import Stop

ROOT = pathlib.Path(__file__).resolve().parents[2]
FILE = "stages.json"
SCHEMA = 1
# The roles a stage's targets play (cmake/stages.cmake, reduce_register_target).
ANSWER, TEMPLATE, ANSWER_TESTS, TEMPLATE_TESTS = "answer", "template", "answer_tests", "template_tests"
# Where the student edition keeps each stage's template as shipped (export.py writes it).
SHIPPED_TEMPLATES = ".course/templates"


class Stage:
    """One stage as the registry knows it. `build_dir` is where its targets are looked for:
    the build folder the registry was read from, or another path the same build is seen at
    (the grader's sandbox)."""

    def __init__(self, entry, registry):
        self._entry, self._registry = entry, registry
        self.number = entry["number"]
        self.folder = entry["folder"]
        self.needs = list(entry["needs"])
        self.allows = list(entry["allows"])
        self.built = entry["built"]
        self.why_not_built = entry["why_not_built"]

    def __repr__(self):
        return f"Stage({self.number}, {self.folder!r})"

    # ------------------------------------------------------------------ where things are
    @property
    def directory(self):
        """The stage's folder in the source tree (lesson, template, hints)."""
        return self._registry.source_dir / "stages" / self.folder

    @property
    def template_source(self):
        return self.directory / "todo.cu"

    @property
    def answer_source(self):
        return self._registry.source_dir / "answers" / self.folder / "todo.cu"

    @property
    def shipped_template(self):
        """The template as the course shipped it, to compare the student's file with outside
        the TODO blocks: the answer where the tree has one (identical there, a host test
        says), else the copy the student edition keeps (scripts/course/export.py), else None."""
        for path in (self.answer_source,
                     self._registry.source_dir / SHIPPED_TEMPLATES / self.folder / "todo.cu"):
            if path.is_file():
                return path
        return None

    @property
    def lesson(self):
        return self.directory / "README.md"

    @property
    def details(self):
        """The stage's deep-dive page (docs/results/stageNN_details.md): the measurements and
        long explanations its lesson links to."""
        return self._registry.source_dir / "docs" / "results" / f"stage{self.number:02d}_details.md"

    def has_target(self, role):
        return role in self._entry["targets"]

    def target(self, role):
        """The CMake target's name for `role` (answer, template, answer_tests, template_tests)."""
        try:
            return self._entry["targets"][role]["name"]
        except KeyError:
            raise Stop(f"error: stage {self.number} has no {role.replace('_', ' ')} in this "
                       f"build ({self._registry.name})", 4) from None

    def path(self, role, build_dir=None):
        """The target's file, under `build_dir` (default: the registry's build folder)."""
        self.target(role)
        base = pathlib.Path(build_dir) if build_dir else self._registry.build_dir
        return base / self._entry["targets"][role]["path"]

    def test_prefix(self, role):
        """ctest's name prefix for the suite of `role` (answer_tests, template_tests)."""
        self.target(role)
        return self._entry["targets"][role].get("test_prefix")

    def variants(self, build_dir=None):
        """{slug: (target name, file)} for the lessons' variants of the answer
        (bench/experiments/variants): built only by target lesson_variants."""
        base = pathlib.Path(build_dir) if build_dir else self._registry.build_dir
        return {slug: (v["name"], base / v["path"])
                for slug, v in self._entry.get("variants", {}).items()}

    def exe(self, template=False, build_dir=None):
        return self.path(TEMPLATE if template else ANSWER, build_dir)

    def suite(self, template=False, build_dir=None):
        return self.path(TEMPLATE_TESTS if template else ANSWER_TESTS, build_dir)

    # ------------------------------------------------------------------ what it computes
    def description(self, template=None):
        """What the built executable says of itself (--describe), from stages.json when the
        build step or an earlier call merged it in, else by running it (no GPU) and keeping
        the answer there. `template` None: the answer's where the build has one."""
        role = self._described_role(template)
        if not self.built:
            raise Stop(f"error: stage {self.number} is not built here: {self.why_not_built}", 4)
        return self._registry.described(self, role)

    def _described_role(self, template):
        if template is None:
            return ANSWER if self.has_target(ANSWER) else TEMPLATE
        return TEMPLATE if template else ANSWER

    @property
    def kind(self):
        return self.description()["kind"]

    @property
    def default_block(self):
        return self.description()["default_block"]

    @property
    def blocks(self):
        return self.description()["blocks"]

    def versions(self):
        return describing.versions(self.description())


class Registry:
    """build/stages.json, read once."""

    def __init__(self, path, data, build_dir=None):
        self.path = pathlib.Path(path)
        self.data = data
        self.build_dir = pathlib.Path(build_dir) if build_dir else self.path.parent
        self.name = str(self.build_dir)
        self.source_dir = pathlib.Path(data["source_dir"])
        self.student_edition = data["student_edition"]
        self.nccl = data["nccl"]
        self.cuda_architectures = list(data["cuda_architectures"])
        self.architectures_from = data["architectures_from"]
        self.gpu_slots = data["gpu_slots"]
        self.stages = [Stage(entry, self) for entry in data["stages"]]
        self._by_number = {s.number: s for s in self.stages}
        self._descriptions = data.setdefault("descriptions", {})

    @property
    def bin_dir(self):
        return self.build_dir / "bin"

    def numbers(self):
        return [s.number for s in self.stages]

    def get(self, number):
        """The stage with that number, or None."""
        return self._by_number.get(number)

    def stage(self, number, program=None):
        """The stage with that number; else a Stop (exit 2) that lists the stages."""
        found = self.get(number)
        if found is None:
            prefix = f"{program}: " if program else ""
            raise Stop(f"{prefix}error: there is no stage {number}; the stages are: "
                       f"{self.listing()}", 2)
        return found

    def listing(self):
        """'05 06 ... 19': the stage numbers as the error lines list them."""
        return " ".join(f"{n:02d}" for n in self.numbers())

    def by_folder(self, folder):
        return next((s for s in self.stages if s.folder == folder), None)

    # ------------------------------------------------------------------ descriptions
    def described(self, stage, role):
        exe = stage.path(role)
        key = f"{stage.number}:{role}"
        stamp = _stamp(exe)
        kept = self._descriptions.get(key)
        if kept and kept.get("stamp") == stamp and stamp is not None:
            return kept["description"]
        found = describing.describe_or_stop(exe)
        self._descriptions[key] = {"stamp": stamp, "description": found}
        self._save()
        return found

    def describe_all(self):
        """Merges every built stage's --describe (answer and template) into stages.json."""
        for stage in self.stages:
            if not stage.built:
                continue
            for role in (ANSWER, TEMPLATE):
                if stage.has_target(role) and stage.path(role).exists():
                    self.described(stage, role)

    def _save(self):
        """Keeps the merged descriptions in stages.json; a folder we may not write (the
        grader's read-only copy) keeps them in memory only."""
        try:
            handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".stages.")
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(self.data, out, indent=1)
                out.write("\n")
            os.replace(temporary, self.path)
        except OSError:
            pass


def _stamp(exe):
    try:
        info = pathlib.Path(exe).stat()
    except OSError:
        return None
    return [info.st_mtime_ns, info.st_size]


def load(build_dir, program=None, seen_at=None):
    """The registry of the build in `build_dir`. A build that was never configured is a Stop
    (exit 4) saying what to run; `seen_at` is the path the same build is used at (the
    grader's sandbox)."""
    path = pathlib.Path(build_dir) / FILE
    prefix = f"{program}: " if program else ""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise Stop(f"{prefix}error: {path} does not exist: configure the build first "
                   "(scripts/test.sh or cmake --preset default)", 4) from None
    except ValueError:
        raise Stop(f"{prefix}error: {path} is not valid JSON: configure the build again "
                   "(cmake --preset default)", 4) from None
    if data.get("schema") != SCHEMA:
        raise Stop(f"{prefix}error: {path} was written by another version of the course: "
                   "configure the build again (cmake --preset default)", 4)
    return Registry(path, data, seen_at)


def main(argv):
    if argv[:1] == ["--describe"] and len(argv) == 2:
        load(argv[1], "registry").describe_all()
        return 0
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print("usage: python3 -m course.registry [BUILD_DIR] | --describe BUILD_DIR",
              file=sys.stderr)
        return 2
    registry = load(argv[0] if argv else ROOT / "build", "registry")
    for stage in registry.stages:
        state = "built" if stage.built else f"not built: {stage.why_not_built}"
        print(f"{stage.number:02d} {stage.folder} ({state})")
    return 0


if __name__ == "__main__":
    from course.cli import run_main
    run_main(main, "registry")
