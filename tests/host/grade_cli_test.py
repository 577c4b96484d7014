#!/usr/bin/env python3
"""Host test of the whole grader without a GPU (scripts/grade.sh, course.grade.cli): a few
submissions through integrity, 'not started', a build error (the builder is a stand-in
here: compiling CUDA is the GPU test's work) and 'not graded: no CUDA device', exit 3, the
gradebook, result.json, feedback.md, manifest.json, the resumed second run, and the
one-line errors of bad usage."""
import contextlib
import csv
import io
import json
import pathlib
import sys
import tempfile
import unittest
from unittest import mock

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # the package, also when run by hand
from course import stages  # noqa: E402
from course.cli import Stop  # noqa: E402
from course.grade import build, cli, sandbox, synthetic  # noqa: E402

BROKEN = "  float oops = ;"


def fake_prepare(_sandbox, work, numbers, _limits, _jobs):
    path = pathlib.Path(work) / "pristine"
    build.export(path, numbers)
    return build.Edition(path, {n: stages.folder(n) for n in numbers})


def fake_build(_sandbox, _edition, work, number, log, _limits, _jobs):
    source = work / "stages" / stages.folder(number) / "todo.cu"
    lines = source.read_text().split("\n")
    if BROKEN in lines:
        text = f"{source}({lines.index(BROKEN) + 1}): error: expected an expression\n"
        pathlib.Path(log).write_text(text)
        return False, text
    return True, ""


def run_grader(argv):
    """(exit code, what it printed) of scripts/grade.sh argv, built by the stand-ins."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), \
            mock.patch.object(build, "prepare", fake_prepare), \
            mock.patch.object(build, "build_stage", fake_build), \
            mock.patch.object(build, "probe", lambda _e: (False, "No CUDA device found (test)")), \
            mock.patch.object(sandbox, "detect", lambda *_a, **_k: sandbox.Sandbox("unshare")), \
            mock.patch.object(cli, "require_tools", lambda: None):
        try:
            code = cli.main(argv)
        except Stop as stop:
            printed.write(str(stop))
            code = stop.code
    return code, printed.getvalue()


class WithoutGpu(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        base = pathlib.Path(cls.folder.name)
        cls.class_dir, cls.out = base / "class", base / "out"
        answer7, answer9 = synthetic.answer(7), synthetic.answer(9)
        synthetic.write(cls.class_dir / "ada", {7: answer7, 9: synthetic.template(9)})
        synthetic.write(cls.class_dir / "ben", {7: synthetic.outside(answer7), 9: answer9})
        synthetic.write(cls.class_dir / "cy", {7: synthetic.in_block(answer7, 1, "  cub::WarpReduce<float> r;"),
                                              9: synthetic.in_block(answer9, 1, BROKEN)})
        synthetic.write(cls.class_dir / "dee", {7: synthetic.in_block(answer7, 1, "  int s = socket(2, 1, 0);")},
                        {"tests/gpu/stage_suite.cpp": "TEST(Always, Passes) {}\n"})
        cls.args = ["--submissions", str(cls.class_dir), "--out", str(cls.out), "--stages", "7,9",
                    "--secret-seed", "4242"]
        cls.code, cls.printed = run_grader(cls.args)

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def result(self, student):
        return json.loads((self.out / "students" / student / "result.json").read_text())

    def status(self, student, stage):
        return self.result(student)["stages"][stage]["status"]

    def test_exits_3_and_says_why(self):
        self.assertEqual(self.code, 3, self.printed)
        self.assertIn("not graded: no CUDA device", self.printed)

    def test_statuses_are_what_could_be_decided(self):
        self.assertEqual(self.status("ada", "07"), "not graded: no CUDA device")
        self.assertEqual(self.status("ada", "09"), "not started")
        self.assertEqual(self.status("ben", "07"), "integrity")
        self.assertEqual(self.result("ben")["stages"]["07"]["integrity"][0]["rule"], "outside")
        self.assertEqual(self.status("cy", "07"), "integrity")
        self.assertEqual(self.result("cy")["stages"]["07"]["integrity"][0]["rule"], "library")
        self.assertEqual(self.status("cy", "09"), "build error")
        self.assertEqual(self.result("dee")["stages"]["07"]["integrity"][0]["rule"], "network")
        self.assertEqual(self.status("dee", "09"), "not started")  # the file is missing

    def test_a_tampered_test_file_is_listed_and_not_used(self):
        self.assertEqual(self.result("dee")["ignored_files"], ["tests/gpu/stage_suite.cpp"])

    def test_gradebook_rows_and_points(self):
        rows = list(csv.DictReader((self.out / "gradebook.csv").open()))
        self.assertEqual([r["student"] for r in rows], ["ada", "ben", "cy", "dee"])
        self.assertTrue(all(r["total"] == "0" and r["max"] == "200" for r in rows))

    def test_feedback_and_manifest(self):
        self.assertIn("빌드 오류", (self.out / "students" / "cy" / "feedback.md").read_text())
        manifest = json.loads((self.out / "manifest.json").read_text())
        self.assertEqual(manifest["isolation"], "unshare")
        self.assertEqual(manifest["stages"], [7, 9])
        self.assertNotIn("4242", json.dumps(manifest))
        for key in ("course_commit", "rubric_digest", "device", "driver", "cuda", "date"):
            self.assertIn(key, manifest)

    def test_a_second_run_skips_what_is_graded(self):
        code, printed = run_grader(self.args)
        self.assertEqual(code, 3)
        self.assertIn("cy: already graded", printed)
        self.assertIn("dee: already graded", printed)
        self.assertNotIn("ada: already graded", printed)  # its stage 7 still needs a GPU
        code, printed = run_grader(self.args + ["--regrade", "cy"])
        self.assertNotIn("cy: already graded", printed)
        self.assertIn("dee: already graded", printed)

    def test_bad_usage_is_one_line_and_exit_2(self):
        for argv in (["--out", str(self.out)], self.args + ["--stages", "99"],
                     self.args + ["--secret-seed", "x"], self.args + ["--regrade", "nobody"],
                     self.args + ["--rubric", str(self.out / "none.toml")]):
            code, printed = run_grader(argv)
            self.assertEqual(code, 2, argv)
            self.assertEqual(len(printed.strip().splitlines()), 1, printed)


if __name__ == "__main__":
    unittest.main()
