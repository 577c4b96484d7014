"""Every lesson is the student's page: at most MAX_LINES lines, a questions section with at
least two pencil-and-paper questions, and (where the answers ship) an answers page that
answers each of them, numbered as in the lesson."""
import pathlib
import re
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
MAX_LINES = 300
QUESTIONS = "## 생각해 볼 문제"
PENCIL = "(종이와 연필)"
NUMBERED = re.compile(r"^(\d+)\. ", re.M)


def lessons():
    return sorted(p for p in (ROOT / "stages").glob("stage[0-9][0-9]_*/README.md"))


def questions_of(lesson):
    text = lesson.read_text(encoding="utf-8")
    if QUESTIONS not in text:
        return None
    section = text.split(QUESTIONS, 1)[1].split("\n## ", 1)[0]
    return {int(m[1]): line for m, line in
            ((NUMBERED.match(line), line) for line in section.splitlines()) if m}


class Lessons(unittest.TestCase):
    def test_there_are_lessons(self):
        self.assertGreater(len(lessons()), 0)

    def test_every_lesson_fits_on_its_page(self):
        for lesson in lessons():
            lines = len(lesson.read_text(encoding="utf-8").splitlines())
            with self.subTest(lesson=lesson.parent.name):
                self.assertLessEqual(lines, MAX_LINES, "move measurements and walk-throughs to "
                                     "docs/results/ and link them")

    def test_every_lesson_asks_two_pencil_and_paper_questions(self):
        for lesson in lessons():
            questions = questions_of(lesson)
            with self.subTest(lesson=lesson.parent.name):
                self.assertIsNotNone(questions, f"no '{QUESTIONS}' section")
                pencil = [n for n, line in questions.items() if PENCIL in line]
                self.assertGreaterEqual(len(pencil), 2, f"questions {sorted(questions)}")

    def test_every_question_has_its_answer(self):
        for lesson in lessons():
            answers = ROOT / "answers" / lesson.parent.name / "questions.md"
            if not (ROOT / "answers").is_dir():
                self.skipTest("this is the student edition: it has no answers")
            with self.subTest(lesson=lesson.parent.name):
                self.assertTrue(answers.is_file(), f"{answers.relative_to(ROOT)} is missing")
                headings = {int(m[1]) for m in
                            re.finditer(r"^## (\d+)\.", answers.read_text(encoding="utf-8"), re.M)}
                self.assertLessEqual(set(questions_of(lesson) or {}), headings)


if __name__ == "__main__":
    unittest.main()
