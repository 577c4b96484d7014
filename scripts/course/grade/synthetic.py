"""Made-up submissions: the speed measurement's class (scripts/grade.sh --synthetic-class N)
and the pieces the grader's tests build theirs from (an answer, a corpus entry, a line
added inside or outside a TODO block)."""
import pathlib

from course import stages
from course.grade import calibrate
from course.todo_markers import BEGIN

ROOT = stages.ROOT


def template(number):
    return (ROOT / "stages" / stages.folder(number) / "todo.cu").read_text(encoding="utf-8")


def answer(number):
    return (ROOT / "answers" / stages.folder(number) / "todo.cu").read_text(encoding="utf-8")


def corpus(number):
    """The stage's corpus entries that must lose points (calibrate.Entry)."""
    return calibrate.corpus([number], {number: stages.folder(number)})


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
        path = folder / "stages" / stages.folder(number) / "todo.cu"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for relative, text in (extra or {}).items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text, encoding="utf-8")
    return folder


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
