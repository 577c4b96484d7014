"""Made-up submissions: the speed measurement's class (scripts/grade.sh --synthetic-class N)
and the pieces the grader's tests build theirs from (an answer, a corpus entry, a line
added inside or outside a TODO block, the registry of an edition they export but do not
configure). Every stage fact comes from the course's registry (build.course_registry)."""
import json
import pathlib
import tarfile
import tempfile
import unicodedata
import zipfile

from course import registry
from course.grade import build, calibrate, redteam, submissions, sandbox as isolation
from course.todo_markers import BEGIN

ROOT = registry.ROOT


def stage(number):
    """The course registry's Stage `number` (a Stop, exit 2, where there is none)."""
    return build.course_registry().stage(number, build.PROGRAM)


def template(number):
    return stage(number).template_source.read_text(encoding="utf-8")


def answer(number):
    return stage(number).answer_source.read_text(encoding="utf-8")


def corpus(number):
    """The stage's corpus entries that must lose points (calibrate.Entry)."""
    return calibrate.corpus([stage(number)])


def in_block(text, block, line):
    """`text` with `line` added as the first line of TODO block `block`."""
    lines = text.split("\n")
    for index, current in enumerate(lines):
        match = BEGIN.search(current)
        if match and int(match.group(1)) == block:
            return "\n".join(lines[:index + 1] + [line] + lines[index + 1:])
    raise ValueError(f"no TODO block {block}")


def outside(text, line="// an edit outside the TODO blocks"):
    """`text` with `line` added after its first line (outside every TODO block)."""
    first, _, rest = text.partition("\n")
    return f"{first}\n{line}\n{rest}"


def write(folder, sources, extra=None):
    """A submission folder with stages/<name>/todo.cu for each {number: text}, and any
    `extra` {relative path: text} files."""
    folder = pathlib.Path(folder)
    for number, text in sources.items():
        path = folder / "stages" / stage(number).folder / "todo.cu"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for relative, text in (extra or {}).items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text, encoding="utf-8")
    return folder


def edition_registry(edition):
    """Writes edition/build/stages.json as the edition's configure at the sandbox's fixed path
    would (cmake/stages.cmake), for a test that exports an edition without configuring and
    building it: the course build's entries for the stage folders the edition has, without
    the answers' targets, the variants or any --describe. Returns its path."""
    data = json.loads(build.course_registry().path.read_text(encoding="utf-8"))
    present = {p.name for p in (pathlib.Path(edition) / "stages").iterdir() if p.is_dir()}
    stages = []
    for entry in data["stages"]:
        if entry["folder"] not in present:
            continue
        targets = {role: target for role, target in entry["targets"].items()
                   if role in (registry.TEMPLATE, registry.TEMPLATE_TESTS)}
        stages.append(dict(entry, targets=targets, variants={}))
    data.update(source_dir=str(isolation.FIXED), student_edition=True, stages=stages)
    data.pop("descriptions", None)
    path = pathlib.Path(edition) / "build" / registry.FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return path


def make_class(dest, count, numbers):
    """`count` students, each handing in every stage of `numbers`: first the red-team class
    of those stages (redteam_class), then, up to `count`, three in four the answer and every
    fourth a corpus entry of the stage (in turn), so the class has failures to report.
    Returns {student id: what the grader must make of that red-team student}."""
    dest = pathlib.Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    expected = redteam_class(dest, numbers, count)
    entries = {n: corpus(n) for n in numbers}
    for index in range(count - len(expected)):
        sources = {}
        for number in numbers:
            wrong = entries[number] and index % 4 == 3
            sources[number] = (entries[number][(index // 4) % len(entries[number])].text
                               if wrong else answer(number))
        write(dest / f"student{index + 1:03d}", sources)
    return expected


# Students whose name or submission's shape is the attack, each handing in every graded
# stage: (id as written on disk, id the grader must use, what it hands in, its status).
# 이지은 is written decomposed (as macOS types it) and must be graded composed; neither
# Hangul name may become another's, and "-x kim" is a name, not an option.
NAMES = [("김민수", "김민수"), (unicodedata.normalize("NFD", "이지은"), "이지은"),
         ("-x kim", "-x kim")]


def redteam_class(dest, numbers, room):
    """Writes the red-team class of the stages `numbers` into `dest`, at most `room`
    students: every attempt of both red-team files for those stages (integrity.toml's
    stopped by integrity or, the honest ones, full marks; runtime.toml's as each says),
    answers under names that once broke the grader, an archive of too many entries, a
    todo.cu that is not UTF-8 and an archive whose todo.cu is a link. Returns {student id:
    {"status", and where they apply "rule", "key", "performance", "points"}}."""
    dest, expected = pathlib.Path(dest), {}
    for entry in redteam.entries() + redteam.runtime_entries(set(numbers)):
        if entry["stage"] not in numbers:
            continue
        text = redteam.submission(entry, answer(entry["stage"]))
        sources = {n: (text if n == entry["stage"] else answer(n)) for n in numbers}
        write(dest / redteam.student(entry), sources)
        if "status" in entry:  # a runtime attempt
            expectation = {k: entry[k] for k in ("status", "key", "performance", "points")
                           if k in entry}
        elif entry["expect"] == redteam.PASS:
            expectation = {"status": "pass", "points": "full"}
        else:
            expectation = {"status": "integrity", "rule": entry["expect"]}
        expected[redteam.student(entry)] = {"stage": entry["stage"], **expectation}
    answers = {n: answer(n) for n in numbers}
    for written, graded in NAMES:
        write(dest / written, answers)
        expected[graded] = {"status": "pass", "points": "full"}
    expected.update(shape_attacks(dest, numbers))
    if len(expected) > room:
        raise ValueError(f"the red-team class of stages {sorted(numbers)} has {len(expected)} "
                         f"students; ask for at least that many")
    return expected


def shape_attacks(dest, numbers):
    """The submissions refused for their shape, without building anything."""
    first = stage(min(numbers)).folder
    bomb = dest / "too-many-entries.zip"
    with zipfile.ZipFile(bomb, "w") as archive:
        archive.writestr(f"copy/stages/{first}/todo.cu", answer(min(numbers)))
        for index in range(submissions.MAX_FILES * 2 + 1):
            archive.writestr(f"copy/empty/{index}", "")
    not_utf8 = write(dest / "not-utf8", {n: answer(n) for n in numbers})
    path = not_utf8 / "stages" / first / "todo.cu"
    path.write_bytes(path.read_bytes().replace(b"// ====", b"// \xff====", 1))
    with tempfile.TemporaryDirectory() as scratch:
        linked = pathlib.Path(scratch) / "copy" / "stages" / first / "todo.cu"
        linked.parent.mkdir(parents=True)
        linked.symlink_to("/etc/hostname")
        (linked.parent / "README.md").write_text("a plain file beside the link\n")
        with tarfile.open(dest / "linked-todo.tar.gz", "w:gz") as archive:
            archive.add(pathlib.Path(scratch) / "copy", arcname="copy")
    return {"too-many-entries": {"status": "unreadable"}, "not-utf8": {"status": "unreadable"},
            "linked-todo": {"status": "not started"}}


def redteam_problem(student, expectation, stage):
    """None when a red-team student's stage (a result.json stage) came out as `expectation`
    says, else one line."""
    if expectation["status"] == "integrity" and stage["status"] == "integrity":
        rules = [v["rule"] for v in stage.get("integrity", [])]
        return None if expectation["rule"] in rules else (
            f"{student}: stopped by {rules}, not by the rule {expectation['rule']}")
    return redteam.runtime_problem({"id": student, "why": "red-team class", **expectation}, stage)


def class_problems(results, expected):
    """{student: one line} for each red-team student of the synthetic class whose result
    (`results`: {id: result.json}) is not what `expected` (make_class's) says, a missing
    result included."""
    problems = {}
    for student, expectation in expected.items():
        result = results.get(student)
        if result is None:
            problems[student] = f"{student}: no result"
            continue
        for number, stage in result["stages"].items():
            if expectation.get("stage") in (None, int(number)):
                if problem := redteam_problem(student, expectation, stage):
                    problems.setdefault(student, problem)
    return problems
