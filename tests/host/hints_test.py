#!/usr/bin/env python3
"""The stages' hints.txt files against what the check can give and what the tests are
called (no GPU): every key a hint is filed under is one the check can give for that stage,
and every backticked test-name fragment a hint quotes (`gpus2`, `version4`) occurs in a
test name of the stage's suite. Run after the build: the names come from the answers'
suites (--gtest_list_tests)."""
import pathlib
import re
import subprocess
import sys
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # the package, also when run by hand
from course import hints, registry  # noqa: E402
from course.todo_markers import code_by_block  # noqa: E402

BUILD = pathlib.Path(sys.argv.pop(1)) if len(sys.argv) > 1 else registry.ROOT / "build"
# Keys that can carry the TODO block the report points into (rules.py), and the tools'
# own outcomes (a tool that did not finish or printed no summary).
PER_BLOCK = ("memcheck", "racecheck", "synccheck", "initcheck", "tests.barrier", "tests.mask")
TOOL_OUTCOMES = ("timeout", "broken")
# A hint that points at a test's name says so in these words.
NAMES_A_TEST = re.compile(r"테스트 이름")


def recorded_keys():
    """The keys the GPU tests and the harness record or print (tests/, common/)."""
    found = set()
    for path in list((ROOT / "tests").rglob("*.[ch]*")) + list((ROOT / "common").rglob("*.[ch]*")):
        text = path.read_text(encoding="utf-8", errors="replace")
        found |= set(re.findall(r'(?:stands_for|report_failure)\("([a-z_.0-9]+)"', text))
    return found


def possible_keys(stage):
    """Every key the student check can give for `stage`."""
    blocks = code_by_block(stage.template_source.read_text(encoding="utf-8"))
    keys = {k for k in hints.GENERIC if not k.startswith("_")}
    keys |= {f"{base}.todo{k}" for base in PER_BLOCK for k in blocks}
    keys |= {f"{tool}.{outcome}" for tool in PER_BLOCK[:4] for outcome in TOOL_OUTCOMES}
    return keys


def test_names(stage):
    """The stage's test names, from whichever suite is built: the answer's, or in the
    student edition (no answers) the template's; None where none is."""
    roles = [r for r in (registry.ANSWER_TESTS, registry.TEMPLATE_TESTS) if stage.has_target(r)]
    suites = [p for p in (stage.path(r, BUILD) for r in roles) if p.exists()]
    if not suites:
        return None
    suite = suites[0]
    listed = subprocess.run([str(suite), "--gtest_list_tests"], capture_output=True, text=True,
                            timeout=60).stdout
    names, prefix = [], ""
    for line in listed.splitlines():
        if not line.startswith(" "):
            prefix = line.strip()
        else:
            names.append(prefix + line.split("#")[0].strip())
    return names


class Hints(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.registry = registry.load(BUILD)

    def test_every_recorded_key_has_a_generic_hint(self):
        self.assertLessEqual(recorded_keys(), set(hints.GENERIC))

    def test_every_key_is_one_the_check_can_give(self):
        for stage in self.registry.stages:
            table = hints.load_hints(stage.directory)
            unknown = sorted(set(table) - possible_keys(stage) - {"_lesson"})
            self.assertEqual(unknown, [], f"{stage.folder}/hints.txt")

    def test_quoted_test_name_fragments_are_in_real_test_names(self):
        checked = 0
        for stage in self.registry.stages:
            table = hints.load_hints(stage.directory)
            quoted = [fragment for key, value in table.items() if key != "_lesson"
                      for sentence in re.split(r"(?<=[.:])\s", value[0]) if NAMES_A_TEST.search(sentence)
                      for fragment in re.findall(r"`([^`]+)`", sentence)]
            if not quoted:
                continue
            names = test_names(stage)
            if names is None:
                continue  # a stage this build did not make (stage 18 without NCCL)
            for fragment in quoted:
                checked += 1
                self.assertTrue(any(fragment in name for name in names),
                                f"{stage.folder}/hints.txt quotes `{fragment}`, in no test name")
        if checked == 0 and not any(test_names(s) for s in self.registry.stages):
            self.skipTest("no suite is built")


if __name__ == "__main__":
    unittest.main()
