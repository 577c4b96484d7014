"""The TODO blocks of a stage file, read the same way by every script that needs them
(the student check, the template maker, the known-wrong corpus). A block runs from a
`// ==== TODO k of n: BEGIN ====` line to its `END` line; the student writes inside it."""
import re

BEGIN = re.compile(r"// =+ TODO (\d+) of \d+: BEGIN")
END = re.compile(r"// =+ TODO \d+ of \d+: END")


def lines_with_blocks(text):
    """(line, k) for every line of `text`: k is the TODO block the line is inside, None for
    lines outside every block and for the marker lines themselves."""
    current = None
    for line in text.split("\n"):
        begin = BEGIN.search(line)
        if begin or END.search(line):
            current = int(begin.group(1)) if begin else None
            yield line, None
        else:
            yield line, current


def is_code(line):
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("//")


def code_by_block(text):
    """{k: [code lines]} for every TODO block, blocks without code included."""
    blocks = {}
    for line in text.split("\n"):
        begin = BEGIN.search(line)
        if begin:
            blocks[int(begin.group(1))] = []
    for line, block in lines_with_blocks(text):
        if block is not None and is_code(line):
            blocks[block].append(line)
    return blocks


def block_of_line(text, line_number):
    """The TODO block holding 1-based line `line_number`, or None."""
    for number, (_, block) in enumerate(lines_with_blocks(text), start=1):
        if number == line_number:
            return block
    return None


def outside_blocks(text):
    """Every line outside the TODO blocks, the markers included."""
    return [line for line, block in lines_with_blocks(text) if block is None]


def without_block_code(text):
    """`text` with every line inside a TODO block removed except its // comments (the
    student's hints): the template made from an answer."""
    return "\n".join(line for line, block in lines_with_blocks(text)
                     if block is None or line.strip().startswith("//"))


def normalise(text):
    """Unix line endings, no trailing spaces, no trailing blank lines: the lines as compared."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lines = [line.rstrip() for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def first_outside_difference(template, submitted):
    """(line number in `submitted`, its line, False) for the first line outside the TODO blocks
    that differs from `template`'s; (the last outside line's number, the template's first
    missing line, True) where lines outside the blocks are missing; None where none differs.
    The student check and the instructors' grader both compare this way."""
    theirs = [(n, line) for n, (line, block)
              in enumerate(lines_with_blocks("\n".join(normalise(submitted))), start=1)
              if block is None]
    ours = [line for line, block in lines_with_blocks("\n".join(normalise(template)))
            if block is None]
    for index, (number, line) in enumerate(theirs):
        if index >= len(ours) or line != ours[index]:
            return number, line, False
    if len(theirs) < len(ours):
        return (theirs[-1][0] if theirs else 1), ours[len(theirs)], True
    return None
