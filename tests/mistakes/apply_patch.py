#!/usr/bin/env python3
"""Applies one known-wrong entry (a unified diff against its stage's answer) and writes
the wrong solution, as a student would hand it in. Hunks are found by their text, not
their line numbers, so an entry survives edits elsewhere in the answer.

    apply_patch.py ANSWER PATCH OUT       write the patched file (PATCH '-' copies ANSWER)
    apply_patch.py --verify ROOT          check every entry under ROOT/tests/mistakes and
                                          every lesson variant under ROOT/bench/experiments
"""
import pathlib
import sys

# The TODO-block reader the student check uses, so both agree on what a block is.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))  # the package
from course.todo_markers import outside_blocks  # noqa: E402

HEADERS = ("Mistake", "Expect")
VARIANT_HEADERS = ("Variant",)
# Where the entries are, under the repository root: the known-wrong corpus and the lessons'
# variants (bench/experiments/CMakeLists.txt builds the variants from the same patches).
MISTAKES = pathlib.Path("tests/mistakes")
VARIANTS = pathlib.Path("bench/experiments/variants")


def parse(patch_text):
    """(headers {name: value}, hunks [(old lines, new lines)])."""
    headers, hunks, current = {}, [], None
    in_body = False
    for line in patch_text.splitlines():
        if not in_body:
            if line.startswith("--- "):
                in_body = True
                continue
            name, _, value = line.partition(":")
            if value and name.strip() in ("Mistake", "Expect", "Why", "Variant", "Outside",
                                          "Needs"):
                headers[name.strip()] = value.strip()
            continue
        if line.startswith("+++ "):
            continue
        if line.startswith("@@"):
            current = ([], [])
            hunks.append(current)
        elif current is not None and line.startswith("\\"):
            continue
        elif current is not None:
            tag, text = (line[:1], line[1:]) if line else (" ", "")
            if tag in (" ", "-"):
                current[0].append(text)
            if tag in (" ", "+"):
                current[1].append(text)
    return headers, hunks


def apply(answer_text, hunks):
    lines = answer_text.split("\n")
    start = 0
    for old, new in hunks:
        at = find(lines, old, start)
        if at is None:
            raise ValueError("a hunk no longer matches the answer:\n  " + "\n  ".join(old))
        lines[at:at + len(old)] = new
        start = at + len(new)
    return "\n".join(lines)


def find(lines, block, start):
    for at in range(start, len(lines) - len(block) + 1):
        if lines[at:at + len(block)] == block:
            return at
    return None


def verify(root):
    """Every entry: headers present, applies cleanly, changes something, and only inside
    TODO blocks (students edit nothing else). The lessons' variants (bench/experiments) too:
    they are what a student would write, timed beside the answer. An entry that has to
    change a line outside them (a kernel made a template, a memset before the launch) says
    why in an 'Outside:' line."""
    problems, count = [], 0
    entries = []
    for folder, required in ((MISTAKES, HEADERS), (VARIANTS, VARIANT_HEADERS)):
        # A folder that moved would otherwise pass with nothing checked.
        if not (root / folder).is_dir():
            print(f"apply_patch.py: error: {root / folder} does not exist: nothing of it "
                  "could be checked", file=sys.stderr)
            return 1
        found = sorted((root / folder).glob("stage[0-9][0-9]_*/*.patch"))
        if not found:
            print(f"apply_patch.py: error: {root / folder} holds no "
                  "stageNN_*/*.patch", file=sys.stderr)
            return 1
        entries += [(p, required) for p in found]
    for patch, required in entries:
        count += 1
        answer = root / "answers" / patch.parent.name / "todo.cu"
        try:
            headers, hunks = parse(patch.read_text(encoding="utf-8"))
            missing = [h for h in required if h not in headers]
            if missing:
                raise ValueError("missing header line(s): " + ", ".join(missing))
            if headers.get("Expect") == "pass" and "Why" not in headers:
                raise ValueError("an entry no check catches needs a 'Why:' line")
            original = answer.read_text(encoding="utf-8")
            wrong = apply(original, hunks)
            if wrong == original:
                raise ValueError("the patch changes nothing")
            reshapes = "Outside" in headers
            if not reshapes and outside_blocks(wrong) != outside_blocks(original):
                raise ValueError("the patch changes lines outside the TODO blocks")
        except (OSError, ValueError) as error:
            problems.append(f"{patch.relative_to(root)}: {error}")
    for problem in problems:
        print(problem)
    print(f"{count} entries, {len(problems)} problems")
    return 1 if problems or count == 0 else 0


def main(argv):
    if len(argv) == 2 and argv[0] == "--verify":
        return verify(pathlib.Path(argv[1]))
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-2].strip(), file=sys.stderr)
        return 2
    answer, patch, out = (pathlib.Path(a) for a in argv)
    text = answer.read_text(encoding="utf-8")
    if str(patch) != "-":
        text = apply(text, parse(patch.read_text(encoding="utf-8"))[1])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
