#!/usr/bin/env python3
"""Host test of scripts/course/multi_gpu_bench.py's page and CSV files, fed with rows shaped like
stage 18's and bench_allreduce's --csv output: on one GPU (the two-GPU column said not run)
and on two (speedup, efficiency, the target's verdict and the peer-copy columns), since
no machine that runs CI has two GPUs."""
import csv
import io
import pathlib
import sys
import tempfile
import unittest
from unittest import mock

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # the package, also when run by hand
from course import multi_gpu_bench as bench  # noqa: E402

META = {"seed": 12345, "device": "Some GPU", "driver": "1", "cuda": "13.0", "date": "today",
        "commit": "abc", "block": 256}


def row(part, n, ms, gpus=1, match=True):
    return {"name": part, "executable": part, "n": n, "block": 256, "gpu_ms": ms,
            "gbps": 4 * n / (ms * 1e6), "relative_error": "1e-8", "match": match, "part": part,
            "gpus": gpus}


def scaling(gpus):
    rows = [row("launch", bench.SIZES[0], 0.003)]
    for n in bench.SIZES:
        base = n / 780e6  # about 3.1 TB/s
        rows += [row("read", n, base), row(bench.CAPSTONE, n, base * 1.01),
                 row(bench.SPREAD, n, base * 1.02)]
        if gpus >= 2:
            rows.append(row(bench.SPREAD, n, base * 0.52, gpus=2))
            rows.append(row(bench.RANKS, n, base * 0.52 * (1.5 if n == bench.SIZES[0] else 1.05),
                            gpus=2))
    return rows


def all_reduce(gpus):
    return [{"bytes": b, "gpus": gpus, "nccl_ms": 0.01 + b / 4e8, "nccl_algbw": 1.0,
             "nccl_busbw": 1.0 if gpus == 2 else 0.0, "nccl_match": 1,
             "peer_ms": 0.02 + b / 3e8 if gpus == 2 else -1.0, "peer_algbw": 1.0,
             "peer_busbw": 1.0, "peer_match": 1 if gpus == 2 else 0}
            for b in (1 << 20, 1 << 30)]


class Page(unittest.TestCase):
    def model(self, rows):
        return bench.floor_model([r for r in rows if r["part"] in ("launch", "read")])

    def test_one_gpu_says_what_was_not_run(self):
        rows = scaling(1)
        text = bench.page(META, rows, all_reduce(1), self.model(rows), 1)
        self.assertIn("not run", text)
        self.assertIn("two-GPU column and the peer-copy version were not run", text)
        self.assertNotIn("peer copy + add (us)", text)
        self.assertIn("| 2^31 - 1 |", text)
        self.assertIn("one process per GPU was not run", text)

    def test_two_gpus_report_speedup_efficiency_and_the_target(self):
        rows = scaling(2)
        text = bench.page(META, rows, all_reduce(2), self.model(rows), 2)
        self.assertIn("1.96x", text)  # 1.02 / 0.52
        self.assertIn("98%", text)
        self.assertIn("(target 1.8x: met)", text)
        self.assertIn("peer copy + add (us)", text)
        slow = [dict(r, gpu_ms=r["gpu_ms"] * 1.5) if r["gpus"] == 2 else r for r in rows]
        self.assertIn("missed by", bench.verdict(slow, 2))

    def test_two_gpus_compare_the_ranks_with_one_process_at_every_size(self):
        rows = scaling(2)
        section = bench.ranks_section(rows, 2)
        self.assertIn("| 2^28 | ", section)
        self.assertIn("| 1.50 |", section)
        self.assertIn("| 1.05 |", section)
        self.assertIn("missed at 2^28 (1.50x)", section)
        self.assertNotIn("2^29 (", section)
        fast = [dict(r, gpu_ms=r["gpu_ms"] / 1.5) if r["part"] == bench.RANKS else r for r in rows]
        self.assertIn("at every n: met", bench.ranks_section(fast, 2))
        self.assertIn("## One process per GPU", bench.page(META, rows, all_reduce(2),
                                                          self.model(rows), 2))

    def test_scaling_runs_the_stages_it_is_given_with_a_line_per_size(self):
        calls = []

        def fake_run_csv(executable, options):
            calls.append(executable)
            return {"name": str(executable), "executable": str(executable), "n": options[1],
                    "gpu_ms": 1.0, "match": True}

        out = io.StringIO()
        progress = bench.Progress("bench", out=out)
        progress.plan(bench.scaling_runs(2))
        with mock.patch.object(bench, "run_csv", fake_run_csv):
            rows = bench.measure_scaling("the capstone", "the spread", 2, 256, progress)
        self.assertEqual(calls.count("the capstone"), len(bench.SIZES))
        self.assertEqual(calls.count("the spread"), 2 * len(bench.SIZES))
        self.assertEqual(calls.count("reduce_ranks"), len(bench.SIZES))
        self.assertEqual({r["part"] for r in rows if r["executable"] == "the spread"},
                         {bench.SPREAD})
        lines = out.getvalue().splitlines()
        self.assertEqual(len(lines), len(bench.SIZES))
        self.assertTrue(lines[-1].startswith(f"bench: {len(calls)}/{len(calls)} runs"), lines[-1])

    def test_csv_files_hold_every_row(self):
        rows = scaling(2)
        with tempfile.TemporaryDirectory() as folder:
            path = pathlib.Path(folder) / "rows.csv"
            bench.write_csv(path, rows)
            with open(path, newline="") as handle:
                self.assertEqual(len(list(csv.DictReader(handle))), len(rows))


if __name__ == "__main__":
    unittest.main()
