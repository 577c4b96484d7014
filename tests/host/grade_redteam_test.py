#!/usr/bin/env python3
"""The red-team class against the grader, without a GPU: every integrity attempt
(tests/grade/redteam/integrity.toml) is caught by the rule it names and every honest solution
unlike the answer passes; every runtime attempt (runtime.toml) passes the rules, so that the
GPU runs are what must catch it, and its verdict is read as it says; the synthetic class
holds them all, with their expectations."""
import json
import pathlib
import sys
import tempfile
import unicodedata
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # the package, also when run by hand
from course.grade import build, integrity, lexer, redteam, submissions, synthetic  # noqa: E402

lexer.skip_unless_available()

ENTRIES = redteam.entries()
RUNTIME = redteam.runtime_entries()


def graded(status, points, keys=(), performance_points=0, maximum=100):
    """A result.json stage with those facts."""
    return {"status": status, "points": points, "max": maximum,
            "checks": [{"name": "tests", "ok": not keys, "key": k} for k in keys],
            "performance": {"points": performance_points, "ratio": 1.0 if performance_points else None}}


def submitted(registry, entry):
    """(the entry's submission text, the integrity rules' findings on it)."""
    text = redteam.submission(entry, synthetic.answer(entry["stage"]))
    found = integrity.check(synthetic.template(entry["stage"]), text,
                            registry.stage(entry["stage"]))
    return text, found


class RedTeam(unittest.TestCase):
    def test_every_attempt_is_caught_and_every_honest_solution_passes(self):
        registry = build.course_registry()
        for entry in ENTRIES:
            with self.subTest(entry["id"]):
                _, found = submitted(registry, entry)
                rules = sorted({v.rule for v in found})
                if entry["expect"] == "pass":
                    self.assertEqual([str(v) for v in found], [], entry["why"])
                else:
                    self.assertIn(entry["expect"], rules, f"{entry['why']}: got {rules}")
                    self.assertTrue(all(v.line > 0 for v in found))

    def test_calibration_reads_the_same_verdicts(self):
        registry = build.course_registry()
        stages = {s.number: s for s in registry.stages}
        self.assertEqual(redteam.problems(stages, set(stages)), [])
        attempt = next(e for e in ENTRIES if e["expect"] != redteam.PASS)
        wrong = dict(attempt, expect="global")  # a rule the attempt does not break
        self.assertIn("was not stopped", redteam.verdict(
            wrong, stages[attempt["stage"]], synthetic.template(attempt["stage"]),
            synthetic.answer(attempt["stage"])))

    def test_the_entries_are_well_formed(self):
        ids = [e["id"] for e in ENTRIES]
        self.assertEqual(len(ids), len(set(ids)))
        known = set(integrity.WHY) | {"pass"}
        for entry in ENTRIES:
            self.assertIn(entry["expect"], known, entry["id"])
            self.assertTrue(entry.get("why"), entry["id"])
        self.assertTrue(any(e["expect"] == "pass" for e in ENTRIES))


class RuntimeAttempts(unittest.TestCase):
    def test_every_runtime_attempt_gets_past_the_rules(self):
        registry = build.course_registry()
        for entry in RUNTIME:
            with self.subTest(entry["id"]):
                text, found = submitted(registry, entry)
                self.assertNotEqual(text, synthetic.answer(entry["stage"]))
                self.assertEqual([str(v) for v in found], [], entry["why"])

    def test_the_runtime_entries_are_well_formed(self):
        ids = [e["id"] for e in RUNTIME] + [e["id"] for e in ENTRIES]
        self.assertEqual(len(ids), len(set(ids)))
        for entry in RUNTIME:
            self.assertIn(entry["status"], ("pass", "fail"), entry["id"])
            self.assertTrue(entry.get("why"), entry["id"])
            self.assertTrue({"key", "performance", "points"} & set(entry), entry["id"])
            self.assertEqual(entry["status"] == "fail", "key" in entry, entry["id"])
        self.assertTrue(any(e.get("points") == "full" for e in RUNTIME))

    def test_a_runtime_verdict_reads_status_key_performance_and_points(self):
        hang = dict(id="h", why="w", status="pass", performance="none")
        self.assertIsNone(redteam.runtime_problem(hang, graded("pass", 85)))
        self.assertIn("earned performance points",
                      redteam.runtime_problem(hang, graded("pass", 100, performance_points=15)))
        self.assertIn("not pass", redteam.runtime_problem(hang, graded("fail", 40, ["tests.wrong"])))
        unseen = dict(id="u", why="w", status="fail", key="hidden")
        self.assertIsNone(redteam.runtime_problem(unseen, graded("fail", 70, ["hidden.tests.wrong"])))
        self.assertIn("with a key hidden",
                      redteam.runtime_problem(unseen, graded("fail", 60, ["tests.wrong"])))
        honest = dict(id="o", why="w", status="pass", points="full")
        self.assertIsNone(redteam.runtime_problem(honest, graded("pass", 100, performance_points=15)))
        self.assertIn("full marks", redteam.runtime_problem(honest, graded("pass", 94, performance_points=9)))


class SyntheticClass(unittest.TestCase):
    def test_the_class_holds_the_red_team_and_fills_up_with_the_mix(self):
        with tempfile.TemporaryDirectory() as folder:
            dest = pathlib.Path(folder) / "class"
            expected = synthetic.make_class(dest, 40, [14])
            names = sorted(p.name for p in dest.iterdir())
            self.assertEqual(len(names), 40)
            for entry in RUNTIME + [e for e in ENTRIES if e["stage"] == 14]:
                self.assertIn(redteam.student(entry), expected)
                self.assertIn(redteam.student(entry), names)
            self.assertEqual(expected["redteam-hang-when-timed"],
                             {"stage": 14, "status": "pass", "performance": "none"})
            self.assertEqual(expected["redteam-stage14-inline-assembly"],
                             {"stage": 14, "status": "integrity", "rule": "keyword"})
            # Hangul written decomposed, graded composed; the archives refused unopened.
            self.assertIn(unicodedata.normalize("NFD", "이지은"), names)
            self.assertIn("이지은", expected)
            for name, status in (("too-many-entries", "unreadable"), ("not-utf8", "unreadable"),
                                 ("linked-todo", "not started")):
                self.assertEqual(expected[name], {"status": status})
            json.dumps(expected)  # cli.py writes it as JSON
            self.assert_shapes_are_refused(dest, pathlib.Path(folder) / "unpacked")

    def assert_shapes_are_refused(self, dest, scratch):
        folders = [synthetic.stage(14).folder]
        found = {s.student: s for s in submissions.find(dest)}
        for name in ("too-many-entries", "not-utf8"):
            with self.assertRaises(submissions.SubmissionError, msg=name):
                root = submissions.unpack(found[name], scratch / name)
                submissions.graded_sources(root, folders)
        root = submissions.unpack(found["linked-todo"], scratch / "linked-todo")
        self.assertEqual(submissions.graded_sources(root, folders), {folders[0]: None})
        self.assertIn("이지은", found)  # written decomposed, found composed

    def test_a_red_team_student_graded_otherwise_is_named(self):
        expected = {"redteam-x": {"stage": 14, "status": "integrity", "rule": "keyword"},
                    "kim": {"status": "pass", "points": "full"}}
        results = {"redteam-x": {"stages": {"14": {"status": "integrity",
                                                   "integrity": [{"rule": "attribute"}]}}},
                   "kim": {"stages": {"14": graded("pass", 100, performance_points=15)}}}
        problems = synthetic.class_problems(results, expected)
        self.assertEqual(list(problems), ["redteam-x"])
        self.assertIn("not by the rule keyword", problems["redteam-x"])
        self.assertEqual(list(synthetic.class_problems({}, expected)), ["redteam-x", "kim"])

    def test_too_small_a_class_is_refused(self):
        with tempfile.TemporaryDirectory() as folder:
            with self.assertRaises(ValueError):
                synthetic.make_class(pathlib.Path(folder) / "class", 5, [14])


if __name__ == "__main__":
    unittest.main()
