#!/usr/bin/env python3
"""The red-team class's integrity attempts (tests/grade/redteam/integrity.toml) against the
grader's rules, without a GPU: every attempt is caught by the rule it names, and every honest
solution unlike the answer passes."""
import pathlib
import sys
import tomllib
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # the package, also when run by hand
from course.grade import build, integrity, lexer, synthetic  # noqa: E402
from course.todo_markers import BEGIN, END  # noqa: E402

if not lexer.available():  # ctest reports 77 as skipped
    print("skipped: the grader's lexer needs libclang: " + lexer.INSTALL)
    sys.exit(77)

ENTRIES = tomllib.loads((ROOT / "tests/grade/redteam/integrity.toml").read_text(encoding="utf-8"))["entry"]


def submission(entry):
    """The stage's answer with the entry's lines put into its block."""
    text = synthetic.answer(entry["stage"])
    if not entry.get("replace"):
        return synthetic.in_block(text, entry["block"], entry["insert"])
    lines, out, inside = text.split("\n"), [], False
    for line in lines:
        begin = BEGIN.search(line)
        if begin and int(begin.group(1)) == entry["block"]:
            out += [line, entry["insert"]]
            inside = True
        elif inside and END.search(line):
            out.append(line)
            inside = False
        elif not inside or line.strip().startswith("//"):
            out.append(line)
    return "\n".join(out)


class RedTeam(unittest.TestCase):
    def test_every_attempt_is_caught_and_every_honest_solution_passes(self):
        registry = build.course_registry()
        for entry in ENTRIES:
            with self.subTest(entry["id"]):
                stage = registry.stage(entry["stage"])
                found = integrity.check(synthetic.template(entry["stage"]), submission(entry), stage)
                rules = sorted({v.rule for v in found})
                if entry["expect"] == "pass":
                    self.assertEqual([str(v) for v in found], [], entry["why"])
                else:
                    self.assertIn(entry["expect"], rules, f"{entry['why']}: got {rules}")
                    self.assertTrue(all(v.line > 0 for v in found))

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
