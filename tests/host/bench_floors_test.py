#!/usr/bin/env python3
"""Host test of the benchmark's two references, its pairs of stage 14 and CUB and the claim
they allow (scripts/course/floors.py, and the tables, page, chart and claim blocks that
scripts/course/bench.py writes from them), fed with recorded rows (tests/host/fixtures/
bench_rows.csv, bench_pairs.csv): at 2^28 CUB beats every read kernel, as it once did on the
H100; the pairs are at or below CUB at 2^24, a tie at 2^28 and slower at 2^30."""
import contextlib
import csv
import io
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # the package, also when run by hand
from course import bench, floors, gpu, registry  # noqa: E402

FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures"
MEMORY = {"memory_clock_khz": 2619000, "bus_width_bits": 5120,
          "peak_gbps": floors.peak_gbps(2619000, 5120)}
N24, N28, N30 = 1 << 24, 1 << 28, 1 << 30


def load(name, numbers):
    with open(FIXTURES / name, newline="") as handle:
        rows = list(csv.DictReader(handle))
    for r in rows:
        for key in numbers:
            r[key] = (float if "." in r[key] else int)(r[key])
        r["match"] = r["match"] == "True"
    return rows


def rows():
    return load("bench_rows.csv", ("n", "block", "gpu_ms", "gbps"))


def pairs():
    return load("bench_pairs.csv", ("n", "pair", "capstone_ms", "cub_ms"))


def registry_data(numbers):
    """A build/stages.json (cmake/stages.cmake's shape) holding the stages `numbers`."""
    stages = [{"number": n, "folder": f"stage{n:02d}_fixture", "needs": [], "allows": [],
               "built": True, "why_not_built": None, "variants": {},
               "targets": {registry.ANSWER: {"name": f"answer{n}", "path": f"bin/answer{n}"}}}
              for n in numbers]
    return {"schema": registry.SCHEMA, "source_dir": str(ROOT), "student_edition": False,
            "nccl": False, "cuda_architectures": ["90-real"], "architectures_from": "a test",
            "gpu_slots": 1, "stages": stages}


def fake_registry(numbers, folder):
    """The registry of a build in `folder` with the stages `numbers` (written there)."""
    path = pathlib.Path(folder) / registry.FILE
    path.write_text(json.dumps(registry_data(numbers)))
    return registry.load(folder)


def meta():
    return {"device": "NVIDIA H100 80GB HBM3", "driver": "1", "cuda": "13.0", "date": "today",
            "commit": "abc", "block": 256, "seed": 12345, "main_n": N24, "cache": "clean",
            "launch_us": 3.136, "floor": "best-read", "pairs": 5, **MEMORY}


class References(unittest.TestCase):
    def setUp(self):
        self.rows = rows()
        self.refs = floors.references(self.rows, MEMORY)
        floors.derive(self.rows, self.refs)

    def test_the_theoretical_bandwidth_of_an_h100_sxm(self):
        self.assertAlmostEqual(MEMORY["peak_gbps"], 3352.32, places=2)

    def test_the_best_read_is_the_fastest_read_kernel(self):
        self.assertEqual(self.refs[N24]["best_read_name"], "read v1")
        self.assertAlmostEqual(self.refs[N24]["best_read_ms"], 0.02470)
        self.assertIsNone(self.refs[N24]["read_beaten_by"])

    def test_a_reduction_faster_than_every_read_becomes_the_best_read(self):
        ref = self.refs[N28]
        self.assertEqual(ref["read_beaten_by"], "CUB")
        self.assertAlmostEqual(ref["best_read_ms"], 0.3506)
        self.assertAlmostEqual(ref["read_ms"], 0.3519)
        lines = floors.beaten_lines(self.refs)
        self.assertEqual(len(lines), 1)
        self.assertIn("At n = 2^28, CUB (350.6 us) was faster than every read kernel "
                      "(best 351.9 us)", lines[0])

    def test_the_physical_limit_is_below_every_time(self):
        launch = floors.launch_ms(self.rows)
        self.assertAlmostEqual(launch, 0.003136)
        for r in self.rows:
            if r["name"] in ("launch",):
                self.assertIsNone(r["x_limit"])
                continue
            if r["name"] == "copy":
                continue  # reads and writes: 8n bytes against a 4n-byte limit
            self.assertGreater(r["x_limit"], 1.0, r)
            self.assertGreaterEqual(r["x_floor"], 1.0, r)
        cap = next(r for r in self.rows if r["name"] == "Stage 14" and r["n"] == N24)
        self.assertAlmostEqual(cap["limit_ms"], 0.003136 + 4 * N24 / (MEMORY["peak_gbps"] * 1e6))
        self.assertAlmostEqual(cap["x_cub"], 0.02643 / 0.02856)

    def test_without_bench_memory_there_is_no_limit(self):
        plain = rows()
        refs = floors.references(plain, None)
        floors.derive(plain, refs)
        self.assertTrue(all(r["x_limit"] is None for r in plain))
        self.assertTrue(all(r["x_floor"] is not None for r in plain if r["name"] != "launch"))


class Pairs(unittest.TestCase):
    def setUp(self):
        self.summary = floors.pair_summary(pairs())
        self.by_n = {e["n"]: e for e in self.summary}

    def test_the_verdict_needs_the_whole_range(self):
        self.assertEqual(self.by_n[N24]["verdict"], floors.AT_OR_BELOW)
        self.assertEqual(self.by_n[N28]["verdict"], floors.TIE)
        self.assertEqual(self.by_n[N30]["verdict"], floors.SLOWER)
        self.assertEqual(self.by_n[N28]["pairs"], 5)
        self.assertLess(self.by_n[N28]["low"], 1.0)
        self.assertGreater(self.by_n[N28]["high"], 1.0)

    def test_verdict_edges(self):
        self.assertEqual(floors.verdict(0.9, 1.0), floors.AT_OR_BELOW)
        self.assertEqual(floors.verdict(1.0, 1.01), floors.TIE)
        self.assertEqual(floors.verdict(1.001, 1.2), floors.SLOWER)

    def test_pairs_alternate_which_runs_first(self):
        self.assertEqual(floors.pair_order(0), ("Stage 14", "CUB"))
        self.assertEqual(floors.pair_order(1), ("CUB", "Stage 14"))

    def test_the_claim_says_only_what_the_ranges_allow(self):
        text = floors.claim(self.summary, N24)
        self.assertIn("at or below CUB at 2^24", text)
        self.assertIn("a tie at 2^28", text)
        self.assertIn("slower than CUB at 2^30", text)
        self.assertIn("At n = 2^24: 0.926 [0.925, 0.927].", text)
        self.assertNotIn("every size", text)
        korean = floors.claim_ko(self.summary, N24)
        self.assertIn("2^28에서는 비겼고", korean)

    def test_no_pairs_no_claim(self):
        self.assertIn("claims nothing", floors.claim([], N24))
        self.assertIn("claims nothing", bench.claim_block([], meta()))

    def test_size_ranges(self):
        self.assertEqual(floors.size_ranges([1 << k for k in (10, 11, 12, 15, 20, 21)]),
                         "2^10-2^12, 2^15, 2^20-2^21")

    def test_the_benchmark_runs_the_missing_pairs_in_alternating_order(self):
        swept = rows()
        calls = []

        def fake_measure(executable, n, repeat, dirty, block, extra=()):
            target, _ = gpu.resolve(executable)  # a Stage runs its registry target
            calls.append((target, n))
            name = "Stage 14" if target == "answer14" else "CUB"
            return {"name": name, "n": n, "gpu_ms": 1.0 if name == "CUB" else 0.99,
                    "gbps": 1.0, "match": True}

        with tempfile.TemporaryDirectory() as folder:
            capstone = fake_registry([7, 14], folder).get(14)
            out = io.StringIO()
            with mock.patch.object(bench, "measure", fake_measure), \
                    contextlib.redirect_stdout(out):
                found = bench.run_pairs(swept, capstone, 5, lambda n: 3, False, 256)
        self.assertEqual(len(found), 15)  # 5 per size, the sweep's own pair the first
        at24 = [c for c in calls if c[1] == N24]
        self.assertEqual(len(at24), 8)
        self.assertEqual([c[0] for c in at24[:4]],
                         ["bench_cub", "answer14", "answer14", "bench_cub"])
        self.assertEqual([p["first"] for p in found if p["n"] == N24],
                         ["Stage 14", "CUB", "Stage 14", "CUB", "Stage 14"])
        # One progress line per size, not one per run.
        lines = out.getvalue().splitlines()
        self.assertEqual(len(lines), 3)
        self.assertTrue(lines[0].startswith("bench: 8/24 runs (pairs, n = 2^24), "), lines[0])
        self.assertIn("done in", lines[-1])


class Progress(unittest.TestCase):
    def test_one_line_per_step_with_the_time_left(self):
        now = [0.0]
        out = io.StringIO()
        progress = gpu.Progress("bench", clock=lambda: now[0], out=out)
        progress.plan(240)
        now[0] = 60.0
        progress.step(37)
        now[0] = 390.0
        progress.step(203, note=" (n = 2^30)")
        self.assertEqual(out.getvalue().splitlines(),
                         ["bench: 37/240 runs, about 5 min left",
                          "bench: 240/240 runs (n = 2^30), done in 6 min"])

    def test_weighted_steps(self):
        now = [0.0]
        out = io.StringIO()
        progress = gpu.Progress("bench", clock=lambda: now[0], out=out)
        progress.plan(2, work=7.0)
        now[0] = 10.0
        progress.step(1, work=1.0)  # a cheap run first: the expensive one is still ahead
        self.assertEqual(out.getvalue().strip(), "bench: 1/2 runs, about 1 min left")

    def test_durations(self):
        self.assertEqual([gpu.duration(s) for s in (4, 59.4, 95, 3600, 4000)],
                         ["4 s", "59 s", "2 min", "1 h 0 min", "1 h 7 min"])


class Registry(unittest.TestCase):
    """What the benchmark takes from the stage registry rather than from names."""

    def test_the_block_is_the_capstones_default_not_the_middle_of_its_list(self):
        with tempfile.TemporaryDirectory() as folder:
            reg = fake_registry([7, 14], folder)
            described = {"operation": "sum", "blocks": [32, 64, 128, 256, 512, 1024]}
            descriptions = {reg.get(7): dict(described, default_block=256),
                            reg.get(14): dict(described, default_block=128)}
            self.assertEqual(bench.bench_block(descriptions), 128)
            self.assertEqual(bench.sum_stages(descriptions), [reg.get(7), reg.get(14)])
            self.assertEqual(gpu.resolve(reg.get(14)),
                             ("answer14", pathlib.Path(folder) / "bin" / "answer14"))
            self.assertEqual(gpu.resolve("bench_cub"), ("bench_cub", gpu.BIN / "bench_cub"))

    def saved(self, folder, numbers):
        path = pathlib.Path(folder) / "results.json"
        path.write_text(json.dumps({"meta": meta(), "pair_summary": [],
                                    "summary": [{"name": f"Stage {n}"} for n in numbers]
                                    + [{"name": "CUB"}]}))
        return path

    def test_check_docs_skips_a_partial_edition(self):
        # export_student.sh --stages 6-10 keeps the README's table of every stage.
        with tempfile.TemporaryDirectory() as folder:
            fake_registry([6, 7, 8, 9, 10], folder)
            out = io.StringIO()
            with mock.patch.dict(os.environ, {"REDUCE_BUILD_DIR": folder}), \
                    contextlib.redirect_stdout(out):
                code = bench.rewrite_docs(self.saved(folder, [7, 11, 14]), check=True)
            self.assertEqual(code, 77)
            lines = out.getvalue().splitlines()
            self.assertEqual(len(lines), 1)
            self.assertIn("measured stages 11, 14, which this tree does not have", lines[0])
            # --docs-only there would write links to lessons that are not there: it refuses.
            with mock.patch.dict(os.environ, {"REDUCE_BUILD_DIR": folder}):
                with self.assertRaises(bench.Stop) as caught:
                    bench.rewrite_docs(self.saved(folder, [7, 11, 14]), check=False)
            self.assertEqual(caught.exception.code, 2)


class Page(unittest.TestCase):
    def setUp(self):
        self.rows = rows()
        self.refs = floors.references(self.rows, MEMORY)
        floors.derive(self.rows, self.refs)
        self.summary = floors.pair_summary(pairs())
        self.table = bench.summary_table(self.rows, N24)

    def test_the_page_shows_both_references_and_the_ranges(self):
        text = bench.results_page(meta(), self.table, self.rows,
                                  [r["name"] for r in self.table], self.summary, self.refs)
        self.assertIn("**The physical limit**", text)
        self.assertIn("3352 GB/s", text)
        self.assertIn("| n | limit (us) | best read (us) |", text)
        self.assertIn("| x limit | x floor |", text)
        self.assertIn("(5) | tie |", text)
        self.assertIn("was faster than every read kernel", text)
        self.assertIn("## Time as a multiple of the physical limit", text)

    def test_the_readme_and_lesson_tables_carry_the_limit(self):
        readme = bench.readme_table(self.table, {"14": "stage14_single_pass"}, meta())
        self.assertIn("| x limit | x floor | x CUB |", readme)
        self.assertIn("x limit: time / physical limit", readme)
        cap = next(r for r in self.table if r["name"] == "Stage 14")
        self.assertIn("물리 한계 대비", bench.lesson_block(cap, meta()))

    def test_a_run_saved_before_the_references_still_renders(self):
        old = {**meta(), "floor": None, "read_ceiling_gbps": 3163.1}
        row = {"name": "Stage 14", "gpu_ms": 0.02643, "gbps": 2538.9, "x_floor": 1.09,
               "x_cub": 0.93, "speedup_prev": 1.12, "speedup_base": 6.0}
        readme = bench.readme_table([row], {"14": "stage14_single_pass"}, old)
        self.assertIn("modelled floor", readme)
        self.assertIn("| - | 1.09 | 0.93 |", readme)
        self.assertIn("| - | 1.09배 |", bench.lesson_block(row, old))

    def test_the_chart_draws_the_references_and_the_error_bars(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.skipTest("matplotlib is not installed")
        with tempfile.TemporaryDirectory() as folder:
            path = pathlib.Path(folder) / "bandwidth.png"
            bench.plot(self.table, self.rows, self.summary, path, 256)
            self.assertGreater(path.stat().st_size, 10000)


class Merge(unittest.TestCase):
    def saved(self, sizes):
        return {"meta": meta(), "runs": [r for r in rows() if r["n"] in sizes],
                "pairs": [p for p in pairs() if p["n"] in sizes]}

    def test_partial_runs_join_into_one(self):
        import argparse
        import json
        with tempfile.TemporaryDirectory() as folder:
            parts = []
            for name, sizes in (("a", {N24}), ("b", {N28, N30})):
                part = pathlib.Path(folder) / name
                part.mkdir()
                (part / "results.json").write_text(json.dumps(self.saved(sizes)))
                parts.append(part / "results.json")
            out = pathlib.Path(folder) / "joined"
            args = argparse.Namespace(out=str(out), pairs=5)
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(bench.merge(args, parts), 0)
            joined = json.loads((out / "results.json").read_text())
            self.assertEqual(sorted({r["n"] for r in joined["runs"]}), [N24, N28, N30])
            self.assertEqual([e["verdict"] for e in joined["pair_summary"]],
                             [floors.AT_OR_BELOW, floors.TIE, floors.SLOWER])
            self.assertIn("was faster than every read kernel", (out / "README.md").read_text())
            with self.assertRaises(bench.Stop):
                bench.merge(args, [parts[0], parts[0]])


class Commit(unittest.TestCase):
    """The commit a page names: HEAD where the tracked files are HEAD's, marked where they
    differ (a tree copied to a GPU machine can carry an older .git), BENCH_COMMIT where set."""

    def test_a_changed_tree_is_marked_and_bench_commit_wins(self):
        with tempfile.TemporaryDirectory() as tmp:
            repo = pathlib.Path(tmp)
            git = ["git", "-C", tmp, "-c", "user.name=t", "-c", "user.email=t@t"]
            subprocess.run(git + ["init", "-q"], check=True)
            (repo / "kernel.cu").write_text("one\n")
            subprocess.run(git + ["add", "kernel.cu"], check=True)
            subprocess.run(git + ["commit", "-q", "-m", "one"], check=True)
            head = subprocess.run(git + ["rev-parse", "--short", "HEAD"], check=True,
                                  capture_output=True, text=True).stdout.strip()
            with mock.patch.object(gpu, "ROOT", repo), mock.patch.dict(os.environ, {}, clear=False):
                os.environ.pop("BENCH_COMMIT", None)
                self.assertEqual(gpu.course_commit(), head)
                (repo / "notes.txt").write_text("untracked files do not count\n")
                self.assertEqual(gpu.course_commit(), head)
                (repo / "kernel.cu").write_text("two\n")
                self.assertEqual(gpu.course_commit(), f"{head} with uncommitted changes")
                os.environ["BENCH_COMMIT"] = "abc1234"
                self.assertEqual(gpu.course_commit(), "abc1234")


if __name__ == "__main__":
    unittest.main()
