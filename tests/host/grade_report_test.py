#!/usr/bin/env python3
"""Host tests of what the grader reads and writes: submissions as folders, .zip and
.tar.gz (scripts/course/grade/submissions.py), and the gradebook, result.json, Korean
feedback and class report written from fixture results (report.py)."""
import csv
import io
import json
import pathlib
import sys
import tarfile
import tempfile
import time
import unittest
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # the package, also when run by hand
from course.grade import build, grading, report, submissions, synthetic  # noqa: E402

REGISTRY = build.course_registry()
STAGES = {7: REGISTRY.stage(7), 9: REGISTRY.stage(9)}
FOLDERS = {n: s.folder for n, s in STAGES.items()}


def check(name, ok, key=None, points=0, most=10, detail="detail"):
    return {"name": name, "ok": ok, "key": key, "detail": detail, "log": None,
            "points": points, "max": most}


def fixture_results():
    passing = {"status": grading.PASS, "points": 94.0, "max": 100,
               "checks": [check("tests", True, points=40, most=40), check("hidden", True, points=15, most=15),
                          check("memcheck", True, points=10), check("racecheck", True, points=10),
                          check("synccheck", True, points=5, most=5), check("initcheck", True, points=5, most=5)],
               "performance": {"ratio": 1.3, "points": 9.0}}
    failing = {"status": grading.FAIL, "points": 25, "max": 100,
               "checks": [check("tests", True, points=40, most=40),
                          check("hidden", False, "hidden.tests.wrong", most=15,
                                detail="secret input n = 16777216 seed 4242"),
                          check("racecheck", False, "racecheck.todo2", detail="2건의 경쟁")],
               "performance": {"ratio": None, "points": 0}}
    integrity = {"status": grading.INTEGRITY, "points": 0, "max": 100, "checks": [],
                 "integrity": [{"line": 15, "rule": "name", "why": "not allowed", "text": "cub::x"}]}
    return [
        {"student": "ann", "digest": "d1", "total": 119.0, "max": 200, "ignored_files": [],
         "stages": {"07": passing, "09": failing}},
        {"student": "bo", "digest": "d2", "total": 0, "max": 200, "ignored_files": ["tests/gpu/stage_suite.cpp"],
         "stages": {"07": integrity, "09": {"status": grading.NOT_STARTED, "points": 0, "max": 100,
                                             "checks": [], "detail": "every TODO block is empty"}}},
    ]


class Reports(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.out = pathlib.Path(self.folder.name)
        for result in fixture_results():
            report.write_student(self.out, result, STAGES)

    def tearDown(self):
        self.folder.cleanup()

    def test_gradebook_has_a_row_per_student_and_a_column_per_stage(self):
        report.write_gradebook(self.out, [7, 9])
        rows = list(csv.reader(io.StringIO((self.out / "gradebook.csv").read_text())))
        self.assertEqual(rows[0], ["student", "stage07", "stage09", "total", "max"])
        self.assertEqual(rows[1], ["ann", "94.0", "25", "119.0", "200"])
        self.assertEqual(rows[2], ["bo", "0", "0", "0", "200"])

    def test_result_json_keeps_statuses_keys_and_points(self):
        saved = json.loads((self.out / "students" / "ann" / "result.json").read_text())
        self.assertEqual(saved["stages"]["09"]["checks"][2]["key"], "racecheck.todo2")
        self.assertEqual(saved["stages"]["07"]["performance"]["ratio"], 1.3)

    def test_feedback_is_korean_from_the_hints_and_hides_the_secret_input(self):
        text = (self.out / "students" / "ann" / "feedback.md").read_text()
        self.assertIn("총점: **119.0 / 200**", text)
        self.assertIn("답안 실행 시간의 1.30배", text)
        self.assertIn(STAGES[9].lesson.relative_to(ROOT).as_posix(), text)
        self.assertIn(f"stages/{FOLDERS[9]}/README.md", text)
        self.assertIn("비공개 입력 검사", text)
        self.assertNotIn("4242", text)
        self.assertNotIn("16777216", text)
        other = (self.out / "students" / "bo" / "feedback.md").read_text()
        self.assertIn("무결성 위반", other)
        self.assertIn("15번째 줄 (name): 이 단계에서 쓸 수 있는 이름이 아닙니다", other)
        self.assertIn("tests/gpu/stage_suite.cpp", other)

    def test_a_stage_the_run_does_not_know_gets_no_lesson(self):
        """A kept result may hold a stage this run's registry lacks: no hints, no lesson."""
        text = report.feedback(fixture_results()[0], {9: STAGES[9]})
        self.assertIn("## stage 07 — 94.0 / 100점", text)
        self.assertIn(f"## {FOLDERS[9]} — 25 / 100점", text)
        self.assertNotIn(f"stages/{FOLDERS[7]}/README.md", text)

    def test_every_integrity_rule_has_a_korean_sentence(self):
        from course.grade import integrity
        self.assertEqual(set(report.RULES_KO), set(integrity.WHY))

    def test_class_report_has_pass_rate_keys_and_ratios_per_stage(self):
        report.write_class_report(self.out, [7, 9], STAGES)
        text = (self.out / "class_report.md").read_text()
        self.assertIn(f"## stage 07 {FOLDERS[7]}", text)
        self.assertIn("pass rate: 1 / 2 (50%)", text)
        self.assertIn("`integrity.name` 1", text)
        self.assertIn("`racecheck.todo2` 1", text)
        self.assertIn("1 measured, min 1.30", text)
        charts = report.chart_module() is not None
        self.assertEqual((self.out / "charts" / "stage07.png").exists(), charts)
        self.assertEqual("matplotlib is not installed" in text, not charts)


class Submissions(unittest.TestCase):
    def test_an_archive_of_too_many_entries_is_refused_at_once(self):
        with tempfile.TemporaryDirectory() as folder:
            path = pathlib.Path(folder) / "many.zip"
            with zipfile.ZipFile(path, "w") as archive:
                for i in range(submissions.MAX_FILES * 2 + 1):
                    archive.writestr(f"e/{i}/", "")
            started = time.monotonic()
            with self.assertRaises(submissions.SubmissionError) as caught:
                submissions.unpack(submissions.Submission("many", path), pathlib.Path(folder) / "out")
            self.assertIn("entries", str(caught.exception))
            self.assertLess(time.monotonic() - started, 5)

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.folder.name)
        self.class_dir = self.dir / "class"
        edition = synthetic.write(self.dir / "made" / "copy", {7: synthetic.answer(7)},
                                  {"README.md": "changed", "notes.txt": "mine"})
        self.class_dir.mkdir()
        synthetic.write(self.class_dir / "folder-student", {7: synthetic.answer(7)})
        with zipfile.ZipFile(self.class_dir / "zip student.zip", "w") as archive:
            for path in edition.rglob("*"):
                archive.write(path, "copy/" + str(path.relative_to(edition)))
            archive.writestr("../escape.txt", "outside")
        with tarfile.open(self.class_dir / "tar-student.tar.gz", "w:gz") as archive:
            archive.add(edition, arcname="copy")
        (self.class_dir / "notes.txt").write_text("not a submission")

    def tearDown(self):
        self.folder.cleanup()

    def test_every_kind_is_found_and_read_alike(self):
        found = {s.student: s for s in submissions.find(self.class_dir)}
        self.assertEqual(sorted(found), ["folder-student", "tar-student", "zip student"])
        digests = set()
        for student, submission in found.items():
            root = submissions.unpack(submission, self.dir / "unpacked" / student)
            sources = submissions.graded_sources(root, [FOLDERS[7], FOLDERS[9]])
            self.assertEqual(sources[FOLDERS[7]], synthetic.answer(7))
            self.assertIsNone(sources[FOLDERS[9]])
            digests.add(submissions.digest(sources))
        self.assertEqual(len(digests), 1)
        self.assertFalse((self.dir / "unpacked" / "escape.txt").exists())

    def test_other_changed_files_are_listed_as_ignored(self):
        zipped = next(s for s in submissions.find(self.class_dir) if s.student == "zip student")
        root = submissions.unpack(zipped, self.dir / "unpacked")
        (root / "stages" / FOLDERS[9]).mkdir(parents=True)
        (root / "stages" / FOLDERS[9] / "todo.cu").write_text("a stage not graded: not listed")
        (root / "stages" / FOLDERS[9] / "hints.txt").write_text("edited hints: listed")
        ignored = submissions.ignored_files(root, ROOT, [s.folder for s in REGISTRY.stages])
        self.assertEqual(ignored, ["README.md", "notes.txt", f"stages/{FOLDERS[9]}/hints.txt"])

    def test_a_broken_archive_says_why(self):
        (self.class_dir / "broken.zip").write_text("not a zip")
        broken = next(s for s in submissions.find(self.class_dir) if s.student == "broken")
        with self.assertRaises(submissions.SubmissionError):
            submissions.unpack(broken, self.dir / "unpacked")
        (self.dir / "empty").mkdir()
        with self.assertRaises(submissions.SubmissionError):
            submissions.unpack(submissions.Submission("x", self.dir / "empty"), self.dir / "u2")


if __name__ == "__main__":
    unittest.main()
