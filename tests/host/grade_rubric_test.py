#!/usr/bin/env python3
"""Host tests of the grader's rubric (scripts/course/grade/rubric.py): the default, files
that change part of it, and the one-line errors of a bad file."""
import json
import pathlib
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # the package, also when run by hand
from course.check import Verdict  # noqa: E402
from course.grade import build, calibrate, grading, rubric  # noqa: E402


class Rubric(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.folder.name)

    def tearDown(self):
        self.folder.cleanup()

    def file(self, text, name="rubric.toml"):
        path = self.dir / name
        path.write_text(text)
        return path

    def test_default_gives_every_check_points_and_a_hundred_per_stage(self):
        loaded = rubric.load()
        self.assertEqual(set(rubric.points(loaded, 7)), set(rubric.CHECKS))
        self.assertEqual(rubric.maximum(loaded, 7), 100)
        self.assertEqual(loaded["performance"]["rounds"], 5)

    def test_every_stage_of_the_registry_is_worth_a_hundred_by_default(self):
        loaded = rubric.load()
        numbers = build.course_registry().numbers()
        self.assertTrue(numbers)
        self.assertEqual({n: rubric.maximum(loaded, n) for n in numbers},
                         {n: 100 for n in numbers})

    def test_a_file_changes_only_what_it_names(self):
        loaded = rubric.load(self.file("[points]\nhidden = 25\n[stages.14.points]\nperformance = 30\n"))
        self.assertEqual(rubric.points(loaded, 7)["hidden"], 25)
        self.assertEqual(rubric.points(loaded, 7)["tests"], 40)
        self.assertEqual(rubric.points(loaded, 14)["performance"], 30)
        self.assertEqual(rubric.maximum(loaded, 14), 125)

    def test_json_works_too(self):
        loaded = rubric.load(self.file(json.dumps({"points": {"tests": 50}}), "rubric.json"))
        self.assertEqual(rubric.points(loaded, 9)["tests"], 50)

    def test_bands_give_shares_by_ratio(self):
        loaded = rubric.load()
        self.assertEqual(rubric.performance_share(loaded, 0.9), 1.0)
        self.assertEqual(rubric.performance_share(loaded, 1.3), 0.6)
        self.assertEqual(rubric.performance_share(loaded, 2.0), 0.3)
        self.assertEqual(rubric.performance_share(loaded, 9.0), 0.0)
        self.assertEqual(rubric.performance_share(loaded, None), 0.0)

    def test_the_digest_follows_the_content(self):
        self.assertEqual(rubric.digest(rubric.load()), rubric.digest(rubric.load()))
        self.assertNotEqual(rubric.digest(rubric.load()),
                            rubric.digest(rubric.load(self.file("[points]\ntests = 41\n"))))

    def test_bad_files_say_why_in_one_line(self):
        for text, words in (("[points]\nspeed = 3\n", "not a check"),
                            ("[points]\ntests = -1\n", "non-negative"),
                            ("[points\n", "not valid"),
                            ("[limits]\nsuite = 0\n", "positive"),
                            ("[performance]\nbands = [{ at_most = 1.1 }]\n", "at_most and share"),
                            ("[performance]\nbands = [{ at_most = 1.1, share = 2 }]\n", "at most 1"),
                            ("[colours]\nred = 1\n", "unknown section"),
                            ("[stages.x.points]\ntests = 1\n", "only change points")):
            with self.assertRaises(rubric.RubricError) as caught:
                rubric.load(self.file(text))
            self.assertIn(words, str(caught.exception), text)
            self.assertNotIn("\n", str(caught.exception))
        with self.assertRaises(rubric.RubricError):
            rubric.load(self.dir / "missing.toml")



class Noise(unittest.TestCase):
    """Calibration's timing noise widens the bands: the answer timed against itself keeps
    its full share however its rounds moved."""

    def answer(self, ratio, spread):
        return {"stages": {"07": {"status": grading.PASS, "points": 90, "max": 100,
                                  "performance": {"ratio": ratio, "spread": spread}}}}

    def test_noise_is_the_largest_of_the_ratio_its_inverse_and_the_spread(self):
        self.assertAlmostEqual(calibrate.noise(self.answer(1.22, 1.05), [7])[7], 1.22)
        self.assertAlmostEqual(calibrate.noise(self.answer(0.8, 1.05), [7])[7], 1.25)
        self.assertAlmostEqual(calibrate.noise(self.answer(1.0, 1.3), [7])[7], 1.3)
        self.assertEqual(calibrate.answer_problems(self.answer(1.22, 1.3), [7]), [])

    def test_a_ratio_counts_divided_by_the_noise(self):
        ctx = grading.Context(out=pathlib.Path("/nonexistent"), rubric=rubric.load())
        verdicts = [Verdict(name, True, "") for name in rubric.CHECKS if name != "performance"]
        full = rubric.points(ctx.rubric, 7)["performance"]
        ctx.noise = {7: 1.22}
        self_timed = grading.score(ctx, 7, verdicts, {"ratio": 1.22})
        self.assertEqual(self_timed["performance"]["points"], full)
        ctx.noise = {}
        self.assertLess(grading.score(ctx, 7, verdicts, {"ratio": 1.22})["performance"]["points"], full)

if __name__ == "__main__":
    unittest.main()
