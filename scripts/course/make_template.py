"""Writes stages/NAME/todo.cu from answers/NAME/todo.cu by emptying each TODO block.

Maintainers edit the answer, then run this so the template matches it line for line
outside the TODO blocks (the host test Templates.DifferFromAnswerOnlyInsideTodoBlocks
checks that). Comment lines inside a TODO block are the student's hints and are kept.

    scripts/make_template.sh stage11_unroll_last_warp
"""
import sys

from course.registry import ROOT
from course.todo_markers import without_block_code


def main(argv):
    if len(argv) != 1:
        print("usage: scripts/make_template.sh stageNN_name", file=sys.stderr)
        return 2
    root = ROOT
    name = argv[0].strip("/").split("/")[-1]
    answer = root / "answers" / name / "todo.cu"
    if not answer.is_file():
        print(f"make_template.sh: error: {answer} does not exist", file=sys.stderr)
        return 2
    template = root / "stages" / name / "todo.cu"
    template.parent.mkdir(parents=True, exist_ok=True)
    template.write_text(without_block_code(answer.read_text()))
    print(f"wrote {template.relative_to(root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
