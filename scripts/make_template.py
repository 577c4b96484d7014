#!/usr/bin/env python3
"""Writes stages/NAME/todo.cu from answers/NAME/todo.cu by emptying each TODO block.

Maintainers edit the answer, then run this so the template matches it line for line
outside the TODO blocks (the host test Templates.DifferFromAnswerOnlyInsideTodoBlocks
checks that). Comment lines inside a TODO block are the student's hints and are kept.

    scripts/make_template.py stage11_unroll_last_warp
"""
import pathlib
import re
import sys

BEGIN = re.compile(r"// =+ TODO \d+ of \d+: BEGIN =+")
END = re.compile(r"// =+ TODO \d+ of \d+: END =+")


def strip_todo_code(answer: str) -> str:
    out, inside = [], False
    for line in answer.split("\n"):
        if BEGIN.search(line):
            inside = True
        elif END.search(line):
            inside = False
        elif inside and not line.strip().startswith("//"):
            continue
        out.append(line)
    return "\n".join(out)


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: scripts/make_template.py stageNN_name", file=sys.stderr)
        return 2
    root = pathlib.Path(__file__).resolve().parent.parent
    name = sys.argv[1].strip("/").split("/")[-1]
    answer = root / "answers" / name / "todo.cu"
    if not answer.is_file():
        print(f"make_template.py: error: {answer} does not exist", file=sys.stderr)
        return 2
    template = root / "stages" / name / "todo.cu"
    template.parent.mkdir(parents=True, exist_ok=True)
    template.write_text(strip_todo_code(answer.read_text()))
    print(f"wrote {template.relative_to(root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
