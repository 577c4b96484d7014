#!/usr/bin/env python3
"""Host tests of what the scripts read from an executable (scripts/course/describe.py and
report.py): its --describe line, run on stand-in executables that print one, the sanitizer
runs the student check derives from it, and the --csv line read by column name."""
import json
import pathlib
import stat
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # the package, also when run by hand
from course import check, describe, report  # noqa: E402

BLOCKS = [32, 64, 128, 256, 512, 1024]
VECTOR_OPTIONS = ["--n", "--block", "--seed", "--offset", "--scale", "--repeat", "--device",
                  "--csv", "--dirty-l2"]


def description(number=9, kind="vector", versions=1, size_rule="any_length", operation="sum"):
    options = list(VECTOR_OPTIONS)
    if kind == "rows":
        options[0:1] = ["--rows", "--cols"]
    if kind == "multi_gpu":
        options[options.index("--device")] = "--gpus"
    if versions > 1:
        options.append("--version")
    listed = [{"version": v, "technique": f"technique {v}"} for v in range(1, versions + 1)]
    return {"number": number, "name": f"stage{number:02d}_x", "technique": listed[-1]["technique"],
            "kind": kind, "operation": operation, "size_rule": size_rule, "finish": "device",
            "versions": listed, "default_version": versions, "options": options,
            "blocks": BLOCKS, "default_block": 256, "default_seed": 12345, "argmax": operation == "max"}


class FakeExecutables(unittest.TestCase):
    """Tiny shell scripts standing in for stage executables."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def fake(self, body):
        path = pathlib.Path(self.dir.name) / "stage99"
        path.write_text("#!/bin/sh\n" + body + "\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        return path

    def test_one_json_line_is_read(self):
        line = json.dumps(description(15, versions=6, operation="max"))
        found = describe.describe(self.fake(f"[ \"$1\" = --describe ] && echo '{line}'"))
        self.assertEqual(found["default_version"], 6)
        self.assertEqual(found["default_block"], 256)  # the benchmark's block, said by the harness
        self.assertEqual([v for v, _ in describe.versions(found)], [1, 2, 3, 4, 5, 6])
        self.assertTrue(describe.has_versions(found))

    def test_failures_are_one_line(self):
        # A build from before the harness said its default block.
        older = json.dumps({k: v for k, v in description().items() if k != "default_block"})
        cases = {"echo 'bad option' >&2; exit 2": "exited 2: bad option",
                 "echo '{\"number\": 1}'": "keys missing or unknown",
                 f"echo '{older}'": "keys missing or unknown: default_block",
                 "echo not json": "did not print one JSON line",
                 "sleep 5": "did not answer within 1 s"}
        for body, words in cases.items():
            with self.assertRaises(describe.DescribeError) as caught:
                describe.describe(self.fake(body), timeout=1)
            self.assertIn(words, str(caught.exception))
            self.assertEqual(len(str(caught.exception).splitlines()), 1)

    def test_the_exit_code_is_kept(self):
        # build.needs_nccl tells NCCL's one-line stand-in (exit 4) from an executable that
        # does not know --describe (exit 2).
        for code in (2, 4):
            with self.assertRaises(describe.DescribeError) as caught:
                describe.describe(self.fake(f"exit {code}"))
            self.assertEqual(caught.exception.code, code)

    def test_a_missing_executable_is_one_line(self):
        with self.assertRaises(describe.DescribeError):
            describe.describe(pathlib.Path(self.dir.name) / "nothing")


class SanitizerRuns(unittest.TestCase):
    """The runs the student check makes, from the description: the same as when they were
    read from --help and the source."""

    def labels(self, found):
        return [label for label, _ in check.sanitizer_configs(found)]

    def test_any_length(self):
        self.assertEqual(self.labels(description()),
                         ["n=1001, block 32", "n=100, block 1024", "n=65537, block 256"])

    def test_whole_blocks(self):
        self.assertEqual(self.labels(description(7, size_rule="multiple_of_block")),
                         ["n=1056, block 32", "n=1024, block 1024", "n=65536, block 256"])

    def test_versions(self):
        labels = self.labels(description(15, versions=2, operation="max"))
        self.assertEqual(labels, ["n=1001, block 32, --version 1", "n=65537, block 256, --version 1",
                                  "n=1001, block 32, --version 2", "n=65537, block 256, --version 2",
                                  "n=100, block 1024"])

    def test_rows(self):
        configs = check.sanitizer_configs(description(16, "rows", versions=2, operation="softmax"))
        self.assertEqual(configs[0], ("3x1000, block 32, --version 1",
                                      ["--rows", "3", "--cols", "1000", "--block", "32",
                                       "--version", "1"]))
        self.assertEqual(configs[-1][0], "65x33, block 1024")
        self.assertEqual(len(configs), 5)

    def test_multi_gpu_runs_on_one_gpu(self):
        configs = check.sanitizer_configs(description(18, "multi_gpu"))
        self.assertTrue(all(options[-2:] == ["--gpus", "1"] for _, options in configs))
        self.assertTrue(all(label.endswith(", 1 GPU") for label, _ in configs))


class Reports(unittest.TestCase):
    def test_csv_columns_are_the_harness_header(self):
        header = (ROOT / "common" / "harness" / "report.h").read_text()
        self.assertIn(f'kCsvHeader = "{",".join(report.CSV_COLUMNS)}"', header)

    def test_csv_line_by_column_name(self):
        row = report.csv_line("Stage 7,16777216,256,0.159,422.1,1e-08,1\n")
        self.assertEqual(report.typed_csv_row(row)["gpu_ms"], 0.159)
        self.assertTrue(report.typed_csv_row(row)["match"])
        self.assertIsNone(report.csv_line("a,b\n"))
        self.assertIsNone(report.csv_line(""))

    def test_csv_table_with_its_own_header(self):
        rows = report.csv_table("NCCL 2.28\nbytes,gpus,nccl_ms\n1048576,1,0.01\n", "bytes")
        self.assertEqual(rows, [{"bytes": 1048576, "gpus": 1, "nccl_ms": 0.01}])

    def test_report_lines(self):
        text = ("Stage 16\nCPU max : 1.5\nGPU max : 1.5\n  CPU time : 3.000 ms\n"
                "  GPU time : 0.1590 ms\n  Bandwidth: 844.2 GB/s (each value read once and "
                "written once)\n")
        found = report.parse_report(text)
        self.assertEqual((found["gpu_ms"], found["gbps"]), ("0.1590", "844.2"))
        self.assertEqual((found["gpu_value"], found["cpu_value"]), ("1.5", "1.5"))
        self.assertIsNone(report.parse_report("")["gpu_ms"])


if __name__ == "__main__":
    unittest.main()
