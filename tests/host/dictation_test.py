"""No dictation: nothing the student edition ships spells out a piece of an answer's TODO code.

The line test (host.Export.GivesNoAnswerLineAwayOutsideTheGifts) finds an answer line copied
whole; a lesson or a template comment that dictates a TODO usually differs by a `;`, a type,
a name in a comment or a line break. This test compares tokens instead: the code of every
answer's TODO blocks, comments stripped, is cut into windows of WINDOW tokens; a window is
the stage's secret unless the templates up to that stage already hold it as code (then the
student has it). Every file of a fresh student edition is tokenized the same way (lesson
prose, tables, code spans, templates with their comments, hints), and any secret window in
it fails, unless stages/gifts.txt says that file or that later stage's folder gives that
stage's code on purpose. A gift that covers nothing fails too.
"""
import pathlib
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from course.export import GIFT  # noqa: E402  (the one reading of a gift line)
from course.todo_markers import lines_with_blocks  # noqa: E402

# Seven tokens: a call with three arguments, `f(a, b, c)`, is one window (eight tokens let
# a call's name and two arguments through); `a[i] += b` is not. At least MIN_CHARS
# characters and two names, so that runs of punctuation and keywords (`) ; } for ( int`)
# are no secret.
WINDOW = 7
MIN_CHARS = 20
MIN_NAMES = 2

TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d[\w.]*|->|<<=?|>>=?|\+\+|--|&&|\|\||::|[-+*/%&|^!<>=]=|\S")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
KEYWORDS = {"const", "int", "float", "unsigned", "for", "if", "else", "return", "auto", "void",
            "while", "do", "true", "false", "static_cast", "size_t", "std", "long", "bool"}
STAGE = re.compile(r"stage([0-9]{2})_")
# What a student reads: the lessons, templates and hints, the docs and the course's README.
# The harness (common/, bench/) does by design what stage 05 asks the student to write once.
SCANNED = re.compile(r"(stages|docs)/|README(\.ko)?\.md$")
# Definitions the course teaches as formulas, not solutions: the global thread index, the
# grid's thread count, a thread's lane and warp, and the place a block's result goes. Each
# becomes one token, so a window around it can still be a secret, but the formula alone is not.
IDIOMS = {
    "global_index": ["std :: size_t { blockIdx . x } * blockDim . x + threadIdx . x",
                     "blockIdx . x * blockDim . x + threadIdx . x",
                     "blockIdx . x * blockDim . x + tid"],
    "grid_threads": ["blockDim . x * gridDim . x"],
    "lane": ["threadIdx . x % kWarpSize"],
    "warp": ["threadIdx . x / kWarpSize"],
    "block_output": ["block_sums [ blockIdx . x ]"],
}


def tokens(text):
    # Backticks and Markdown escapes carry no code; a window may run across them.
    found = TOKEN.findall(text.replace("`", " ").replace("\\*", "*").replace("\\_", "_"))
    for name, spellings in IDIOMS.items():
        for spelling in spellings:
            idiom = spelling.split()
            i = 0
            while i + len(idiom) <= len(found):
                if found[i:i + len(idiom)] == idiom:
                    found[i:i + len(idiom)] = [f"<{name}>"]
                i += 1
    return found


def without_comments(code):
    code = re.sub(r"/\*.*?\*/", " ", code, flags=re.S)
    return re.sub(r"//[^\n]*", " ", code)


def todo_code(path):
    text = path.read_text(encoding="utf-8")
    return without_comments("\n".join(line for line, block in lines_with_blocks(text) if block))


def windows(toks):
    for i in range(len(toks) - WINDOW + 1):
        window = tuple(toks[i:i + WINDOW])
        names = [t for t in window if (NAME.match(t) and t not in KEYWORDS) or t.startswith("<")]
        if sum(map(len, window)) >= MIN_CHARS and len(names) >= MIN_NAMES:
            yield window


def stage_folders(root):
    return sorted(p.name for p in (root / "stages").iterdir() if p.is_dir() and STAGE.match(p.name))


def secrets(root):
    """stage number -> the token windows of its answer's TODO code that no template gives."""
    given, found = set(), {}
    for folder in stage_folders(root):
        template = (root / "stages" / folder / "todo.cu").read_text(encoding="utf-8")
        given.update(windows(tokens(without_comments(template))))
        answer = root / "answers" / folder / "todo.cu"
        found[int(folder[5:7])] = set(windows(tokens(todo_code(answer)))) - given
    return found


def read_gifts(root):
    gifts = []
    for line in (root / "stages" / "gifts.txt").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        m = GIFT.match(line)
        if not m:
            raise AssertionError(f"stages/gifts.txt: not '<giver> gives <stage>: <reason>': {line}")
        gifts.append((m[1], int(m[2]), line))
    return gifts


def gift_for(gifts, path, stage):
    for giver, given_stage, line in gifts:
        if given_stage != stage:
            continue
        if re.fullmatch(r"[0-9]{2}", giver) and path.startswith(f"stages/stage{giver}_"):
            return line
        if path == giver:
            return line
    return None


def leaks(edition, secret, gifts):
    """(path, line number, stage, window) for each secret window outside the gifts; the gifts used."""
    found, used = [], set()
    for file in sorted(edition.rglob("*")):
        path = file.relative_to(edition).as_posix()
        if not file.is_file() or not SCANNED.match(path) or file.suffix in {".svg", ".png", ".csv"}:
            continue
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        line_of, toks = [], []
        for number, line in enumerate(text.splitlines(), 1):
            # A comment's markers are no code: a call spelt over two comment lines is one.
            for token in tokens(line.replace("//", " ")):
                toks.append(token)
                line_of.append(number)
        at = {}
        for i in range(len(toks) - WINDOW + 1):
            at.setdefault(tuple(toks[i:i + WINDOW]), i)
        for stage, windows_of_stage in secret.items():
            for window in windows_of_stage & at.keys():
                gift = gift_for(gifts, path, stage)
                if gift:
                    used.add(gift)
                else:
                    found.append((path, line_of[at[window]], stage, " ".join(window)))
    return found, used


class Dictation(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not (ROOT / "answers").is_dir():
            raise unittest.SkipTest("this is the student edition: it has no answers")
        cls.tmp = tempfile.TemporaryDirectory()
        cls.edition = pathlib.Path(cls.tmp.name) / "edition"
        subprocess.run([str(ROOT / "scripts" / "export_student.sh"), str(cls.edition)], check=True,
                       stdout=subprocess.DEVNULL)
        cls.secret = secrets(ROOT)
        cls.gifts = read_gifts(ROOT)
        cls.found, cls.used = leaks(cls.edition, cls.secret, cls.gifts)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_every_answer_has_secrets(self):
        # A tokenizer that lost the answers' code would make the next test pass vacuously.
        for stage, windows_of_stage in self.secret.items():
            self.assertTrue(windows_of_stage, f"stage {stage:02d}: no TODO code found in its answer")

    def test_no_file_spells_out_a_todo(self):
        # One line per place, however many windows start on it.
        seen = {}
        for path, line, stage, window in self.found:
            seen.setdefault((path, line, stage), window)
        report = [f"{path}:{line} spells out stage {stage:02d}'s TODO code: {window}"
                  for (path, line, stage), window in sorted(seen.items())]
        self.assertEqual(report, [], "\n" + "\n".join(report))

    def test_a_planted_dictation_is_found_however_it_is_spelt(self):
        # One secret window of each stage, spelt as a lesson would: in a code span, split
        # over two lines, with different spaces. Each must be found, outside any gift.
        with tempfile.TemporaryDirectory() as tmp:
            lesson = pathlib.Path(tmp) / "docs" / "planted.md"
            lesson.parent.mkdir()
            lines = []
            for stage, windows_of_stage in sorted(self.secret.items()):
                window = [IDIOMS[t[1:-1]][0] if t.startswith("<") else t
                          for t in sorted(windows_of_stage)[0]]
                half = len(window) // 2
                lines += [f"단계 {stage}: `{' '.join(window[:half])}`", "   ".join(window[half:]), ""]
            lesson.write_text("\n".join(lines), encoding="utf-8")
            found, _ = leaks(pathlib.Path(tmp), self.secret, [])
            self.assertEqual({stage for _, _, stage, _ in found}, set(self.secret))

    def test_every_gift_covers_something(self):
        # A gift that covers nothing would hide a later dictation. Gifts of files this test
        # does not read (bench/, common/) are host.Export's to check, by whole lines.
        scanned = [line for giver, _, line in self.gifts
                   if re.fullmatch(r"[0-9]{2}", giver) or SCANNED.match(giver)]
        self.assertEqual(sorted(set(scanned) - self.used), [])

if __name__ == "__main__":
    unittest.main()
