"""Made-up submissions: the speed measurement's class (scripts/grade.sh --synthetic-class N)
and the pieces the grader's tests build theirs from (an answer, a corpus entry, a line
added inside or outside a TODO block, the registry of an edition they export but do not
configure). Every stage fact comes from the course's registry (build.course_registry)."""
import json
import pathlib

from course import registry
from course.grade import build, calibrate, sandbox as isolation
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
    """`count` students, each handing in every stage of `numbers`: three in four the answer,
    every fourth a corpus entry of the stage (in turn), so the class has failures to report."""
    dest = pathlib.Path(dest)
    entries = {n: corpus(n) for n in numbers}
    for index in range(count):
        sources = {}
        for number in numbers:
            wrong = entries[number] and index % 4 == 3
            sources[number] = (entries[number][(index // 4) % len(entries[number])].text
                               if wrong else answer(number))
        write(dest / f"student{index + 1:03d}", sources)
    return dest
