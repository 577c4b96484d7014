#!/usr/bin/env python3
"""Host test of the sharded stage suites (REDUCE_SUITE_SHARDS, tests/CMakeLists.txt): a stage
suite split into shards runs every case exactly once, each shard's tally line
(tests/gpu/suite_main.cpp) adds up and agrees with its exit code, an all-skipped shard says so
(ctest reads that line to report it skipped), an unsharded run prints no tally, and
scripts/test.sh's summary counts the cases inside shards. Without a GPU every case skips;
with one, the few selected cases run. Exits 77 (skipped) where no stage suite was built.

    suite_shards_test.py --bin-dir BUILD/bin      (ctest runs it as host.suite_shards)"""
import argparse
import contextlib
import io
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # the package, also when run by hand
from course import test_summary  # noqa: E402

SHARDS = 4
# Six cases, one per block size: quick on a GPU, and more than the shards.
FILTER = "--gtest_filter=*DefaultInputMatchesReference*"
BIN_DIR = None


def template_suites():
    """The stages' template suites, lowest number first (every edition has the templates)."""
    return sorted(BIN_DIR.glob("todo_stage[0-9][0-9]_tests"))


def first_suite():
    return template_suites()[0]


def run(suite, env=None):
    environment = {k: v for k, v in os.environ.items() if not k.startswith("GTEST_")}
    environment.update(env or {})
    done = subprocess.run([str(suite), FILTER, "--gtest_brief=1"], env=environment,
                          capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout + done.stderr


class Shards(unittest.TestCase):
    def test_every_case_runs_once_and_each_tally_adds_up(self):
        suite = first_suite()
        listed = subprocess.run([str(suite), FILTER, "--gtest_list_tests"], capture_output=True,
                                text=True, check=True).stdout
        expected = sum(1 for line in listed.splitlines() if line.startswith("  "))
        self.assertGreater(expected, SHARDS)
        total = 0
        for index in range(SHARDS):
            code, text = run(suite, {"GTEST_TOTAL_SHARDS": str(SHARDS),
                                     "GTEST_SHARD_INDEX": str(index)})
            tallies = test_summary.TALLY.findall(text)
            self.assertEqual(len(tallies), 1, text)
            cases = test_summary.shard_cases(text)
            self.assertEqual(cases["passed"] + cases["failed"] + cases["skipped"],
                             cases["cases"], text)
            self.assertEqual(code == 0, cases["failed"] == 0, text)
            all_skipped = cases["cases"] > 0 and cases["skipped"] == cases["cases"]
            self.assertEqual("reduce-suite: every case was skipped" in text, all_skipped, text)
            ran = len(re.findall(r"^\[ RUN      \]", text, re.MULTILINE))
            self.assertEqual(ran, 0, "--gtest_brief=1 keeps a shard's log short")
            total += cases["cases"]
        self.assertEqual(total, expected)

    def test_an_unsharded_run_prints_no_tally(self):
        _, text = run(first_suite())
        self.assertNotIn("reduce-suite:", text)


JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="x" tests="3">
 <testcase name="stage07.shard0of2" status="run"><system-out>reduce-suite: 3 cases: 3 passed, 0 failed, 0 skipped
</system-out></testcase>
 <testcase name="stage07.shard1of2" status="notrun"><skipped message="skipped"/><system-out>tests/gpu/suite_fixture.h:37: Skipped
no CUDA device: none here
reduce-suite: 2 cases: 0 passed, 0 failed, 2 skipped
reduce-suite: every case was skipped
</system-out></testcase>
 <testcase name="host.one" status="run"><system-out></system-out></testcase>
</testsuite>
"""


class Summary(unittest.TestCase):
    def test_the_label_line_counts_the_cases_in_shards(self):
        with tempfile.TemporaryDirectory() as folder:
            path = pathlib.Path(folder) / "junit.xml"
            path.write_text(JUNIT)
            ElementTree.parse(path)  # well formed, as ctest writes it
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                test_summary.main([str(path)])
        lines = out.getvalue().splitlines()
        gpu = next(line for line in lines if line.startswith("gpu:"))
        self.assertIn("1 passed, 1 skipped (in 2 shards: 5 cases, 3 passed, 2 skipped)", gpu)
        self.assertIn("(skipped: no CUDA device: none here)", gpu)
        host = next(line for line in lines if line.startswith("host:"))
        self.assertNotIn("shards", host)


def main():
    global BIN_DIR
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-dir", required=True, type=pathlib.Path)
    args, rest = parser.parse_known_args()
    BIN_DIR = args.bin_dir
    if not template_suites():
        # A build of the host tests' targets alone (e.g. the partial edition's test) has no suite.
        print(f"skipped: no stage suite built in {BIN_DIR} (cmake --build builds them)")
        return 77
    unittest.main(argv=[sys.argv[0], *rest])


if __name__ == "__main__":
    sys.exit(main())
