#!/usr/bin/env python3
"""The red-team class's integrity attempts (tests/grade/redteam/integrity.toml) against the
grader's rules, without a GPU: every attempt is caught by the rule it names, and every honest
solution unlike the answer passes."""
import pathlib
import sys
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # the package, also when run by hand
from course.grade import build, integrity, lexer, redteam, synthetic  # noqa: E402

lexer.skip_unless_available()

ENTRIES = redteam.entries()


class RedTeam(unittest.TestCase):
    def test_every_attempt_is_caught_and_every_honest_solution_passes(self):
        registry = build.course_registry()
        for entry in ENTRIES:
            with self.subTest(entry["id"]):
                stage = registry.stage(entry["stage"])
                text = redteam.submission(entry, synthetic.answer(entry["stage"]))
                found = integrity.check(synthetic.template(entry["stage"]), text, stage)
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


if __name__ == "__main__":
    unittest.main()
