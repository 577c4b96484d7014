#!/usr/bin/env python3
"""Host tests of the student check's conclusions (scripts/course/rules.py and hints.py), fed
with the output the tools really print, so the keys and hints are right before any GPU runs."""
import pathlib
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # the package, also when run by hand
from course import check, hints, rules, stages  # noqa: E402

def marker(k, which):
    # Built here, not written out, so this file holds no TODO block of its own (the student
    # edition's export test scans every file for filled-in TODO blocks).
    return f"// {'=' * 22} TODO {k} of 2: {which} {'=' * 22}"


SOURCE = "\n".join([
    "// header",
    "__global__ void k() {",
    "  " + marker(1, "BEGIN"),
    "  // hint",
    "  sdata[tid] = in[i];",
    "  " + marker(1, "END"),
    "  for (;;) {",
    "    " + marker(2, "BEGIN"),
    "    sdata[tid] += sdata[tid + stride];",
    "    " + marker(2, "END"),
    "  }",
    "}",
]) + "\n"

RACE = """========= Warning: Race reported between Write access at k(const float *, float *)+0xf0 in todo.cu:5
=========     and Read access at k(const float *, float *)+0x280 in todo.cu:9 [2112 hazards]
Stage 7 reduction matches reference ✅
========= RACECHECK SUMMARY: 2 hazards displayed (0 errors, 2 warnings)
"""

MEMCHECK = """========= Invalid __shared__ read of size 4 bytes
=========     at k(const float *, float *)+0x170 in /somewhere/todo.cu:9
========= ERROR SUMMARY: 1063 errors
"""


class SanitizerVerdicts(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.source = pathlib.Path(self.dir.name) / "todo.cu"
        self.source.write_text(SOURCE)

    def tearDown(self):
        self.dir.cleanup()

    def judge(self, tool, text, code=0):
        return rules.judge_sanitizer(tool, code, text, self.source, "n=1, block 32", None)

    def test_race_reported_as_warning_fails_and_names_the_earliest_todo(self):
        verdict = self.judge("racecheck", RACE)
        self.assertFalse(verdict.ok)
        self.assertEqual(verdict.key, "racecheck.todo1")

    def test_memcheck_error_names_its_todo(self):
        verdict = self.judge("memcheck", MEMCHECK, 4)
        self.assertFalse(verdict.ok)
        self.assertEqual(verdict.key, "memcheck.todo2")
        self.assertIn("todo.cu:9", verdict.detail)

    def test_clean_runs_pass(self):
        self.assertTrue(self.judge("racecheck", "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)").ok)
        self.assertTrue(self.judge("initcheck", "========= ERROR SUMMARY: 0 errors").ok)

    def test_missing_summary_and_timeout_fail(self):
        self.assertEqual(self.judge("synccheck", "nothing").key, "synccheck.broken")
        self.assertEqual(self.judge("synccheck", "", code=None).key, "synccheck.timeout")

    def test_report_outside_the_students_file_has_no_todo(self):
        text = MEMCHECK.replace("/somewhere/todo.cu", "common/block_reduce.cuh")
        self.assertEqual(self.judge("memcheck", text).key, "memcheck")


def report(failures):
    tests = [{"name": f"{name}/block{block}", "failures": [{"failure": msg}] if msg else []}
             for name, block, msg in failures]
    return {"tests": len(tests), "testsuites": [{"testsuite": tests}]}


class SuiteVerdicts(unittest.TestCase):
    def key(self, failures, text="", code=1):
        return rules.judge_suite(code, text, report(failures), None).key

    def test_each_failure_pattern_has_its_key(self):
        wrong = "GPU 12.5, CPU 13"
        self.assertIsNone(self.key([("A", 32, None)], code=0))
        self.assertEqual(self.key([("A", 32, "GPU nan, CPU 1")]), "tests.nan")
        self.assertEqual(self.key([("A", 32, "GPU 1.2676506e+30, CPU 1")]), "tests.poison")
        self.assertEqual(self.key([("A", 32, wrong), ("B", 32, wrong)]), "tests.block32")
        self.assertEqual(self.key([("A", 32, wrong), ("A", 64, wrong)]), "tests.wrong")
        self.assertEqual(self.key([("ExactIntegerInputGivesExactSum", 256, "GPU 3, exact 4")]),
                         "tests.exact")
        self.assertEqual(self.key([("SameInputGivesBitIdenticalSums", 256, "first run 1")]),
                         "tests.repeat")
        self.assertEqual(self.key([("A", 64, "reduce-failure: tests.ticket stage 14 left its ticket at 3")]),
                         "tests.ticket")
        self.assertEqual(self.key([("A", 64, "reduce-failure: tests.cuda_error x (cudaErrorIllegalAddress)")]),
                         "tests.cuda_error")
        self.assertEqual(self.key([("A", 64, "reduce-failure: tests.misaligned x (cudaErrorMisalignedAddress)")]),
                         "tests.misaligned")
        self.assertEqual(self.key([("A", 64, wrong)], text="reduce-check: __shfl_down_sync at /x/todo.cu:5 ran in lane 16"),
                         "tests.mask")

    def test_multi_gpu_failures_have_their_keys(self):
        gpus = lambda name, msg: {"tests": 1, "testsuites": [{"testsuite": [
            {"name": f"{name}/gpus1", "failures": [{"failure": msg}]}]}]}
        cases = {
            "reduce-failure: tests.device sum_on_every_gpu (TODO 3): GPU 0's shard was never summed":
                "tests.device",
            "reduce-failure: tests.nccl_usage sum_on_every_gpu (TODO 4): the ncclAllReduce of GPU 0 "
            "uses ncclMax": "tests.nccl_usage",
            "reduce-failure: tests.shards shard_of(..., g = 1) = {begin 4, count 4} for n = 7 over 2 GPUs":
                "tests.shards",
            "reduce-failure: tests.nccl_error ncclCommInitAll(comms) failed at x.cu:3: invalid usage "
            "(ncclInvalidUsage)": "tests.nccl_error",
        }
        for message, key in cases.items():
            verdict = rules.judge_suite(1, "", gpus("A", message), None)
            self.assertEqual(verdict.key, key, message)
            self.assertIn("GPU 1개로 돌린 경우", verdict.detail)

    def test_versioned_suites_read_the_block_from_their_labels(self):
        wrong = "GPU 12.5, CPU 13"
        versioned = {"tests": 2, "testsuites": [{"testsuite": [
            {"name": "A/block32_version1", "failures": [{"failure": wrong}]},
            {"name": "B/block32_version4", "failures": [{"failure": wrong}]}]}]}
        self.assertEqual(rules.judge_suite(1, "", versioned, None).key, "tests.block32")
        self.assertEqual(self.key([("NanAnywhereGivesNan", 64, "GPU 0.9, CPU nan")]),
                         "tests.nan_rule")
        self.assertEqual(self.key([("ArgmaxOfTiesIsTheFirst", 64, "GPU index 9 (value 3), CPU index 0"),
                                   ("ArgmaxAtEveryPlace", 32, "GPU index none (value nan), CPU index 1")]),
                         "tests.argmax")
        # A wrong argmax fails the hidden-seed argmax test too: still the argmax's key.
        self.assertEqual(self.key([("ArgmaxOfDefaultInput", 64, "GPU index 9 (value 3), CPU index 0"),
                                   ("HiddenSeedArgmax", 64, "GPU index 9 (value 3), CPU index 0")]),
                         "tests.argmax")

    def test_misused_barrier_fails_even_when_every_test_passes(self):
        with tempfile.TemporaryDirectory() as folder:
            source = pathlib.Path(folder) / "todo.cu"
            source.write_text(SOURCE)
            text = ("reduce-check: __syncthreads at /x/todo.cu:9 reached by 128 of the block's "
                    "256 threads (this warp: lanes 0xffffffff)\n")
            verdict = rules.judge_suite(0, text, report([("A", 32, None)]), None, source)
            self.assertFalse(verdict.ok)
            self.assertEqual(verdict.key, "tests.barrier.todo2")
            self.assertIn("todo.cu:9", verdict.detail)

    def test_keys_take_the_old_priority_and_sentences_alone_name_nothing(self):
        wrong = "GPU 12.5, CPU 13"
        # A lost ticket explains the CUDA error after it; a CUDA error outranks wrong sums.
        both = ("reduce-failure: tests.cuda_error launch failed (cudaErrorLaunchFailure)\n"
                "reduce-failure: tests.ticket stage 14 left its ticket at 3")
        self.assertEqual(self.key([("A", 64, both)]), "tests.ticket")
        self.assertEqual(self.key([("A", 64, wrong)], text="reduce-failure: tests.cuda_error x"),
                         "tests.cuda_error")
        shards = "reduce-failure: tests.shards x\nreduce-failure: tests.nccl_error y"
        self.assertEqual(self.key([("A", 64, shards)]), "tests.shards")
        # The English sentences are details for people now, not what the rules read.
        self.assertEqual(self.key([("A", 64, "left its ticket (cudaErrorIllegalAddress)"),
                                   ("A", 32, wrong)]), "tests.wrong")
        # A crash's stderr (the executable's own reduce-failure line) still names the key.
        crash = rules.judge_suite(134, "reduce-failure: tests.misaligned x\nAborted", None, None)
        self.assertEqual(crash.key, "tests.misaligned")

    def test_crash_and_timeout(self):
        self.assertEqual(rules.judge_suite(134, "Aborted", None, None).key, "tests.crash")
        self.assertEqual(rules.judge_suite(None, "", None, None).key, "tests.timeout")


class BuildVerdict(unittest.TestCase):
    def test_first_compile_error_of_the_students_file_is_quoted(self):
        log = ('/x/common/launch.h(3): warning: something\n'
               '/x/stages/stage07_interleaved/todo.cu(21): error: identifier "sdat" is undefined\n'
               '/x/stages/stage07_interleaved/todo.cu(30): error: expected a ";"\n')
        verdict = rules.judge_build(log, "/x/stages/stage07_interleaved/todo.cu", None)
        self.assertFalse(verdict.ok)
        self.assertEqual(verdict.key, "build")
        self.assertIn("21", verdict.detail)
        self.assertIn('identifier "sdat" is undefined', verdict.detail)


class Hints(unittest.TestCase):
    def test_every_key_the_corpus_expects_has_a_hint(self):
        for patch in (ROOT / "tests" / "mistakes").glob("stage*/*.patch"):
            expect = next(l for l in patch.read_text().splitlines() if l.startswith("Expect:"))
            key = expect.split(":", 1)[1].strip()
            if "." in key:  # `pass`, or a whole family such as `tests` for a flaky kind
                own_hints = hints.load_hints(ROOT / "stages" / patch.parent.name)
                own = [k for k in own_hints if key == k or key.startswith(k + ".")]
                self.assertTrue(own, f"{patch}: no hint of its stage covers {key}")

    def test_every_hint_names_a_section_of_its_lesson(self):
        for hints_file in (d / "hints.txt" for d in stages.stage_dirs()):
            lesson = (hints_file.parent / "README.md").read_text(encoding="utf-8")
            headings = {line.lstrip("#").strip() for line in lesson.splitlines()
                        if line.startswith("#")}
            for key, value in hints.load_hints(hints_file.parent).items():
                if not key.startswith("_"):
                    self.assertIn(value[1], headings, f"{hints_file}: {key}")
                    self.assertNotIn(value[1], ("",))

    def test_todo_blocks_tell_an_untouched_template(self):
        self.assertFalse(any(check.todo_blocks(SOURCE.replace("  sdata[tid] = in[i];\n", "")
                                               .replace("    sdata[tid] += sdata[tid + stride];\n", "")).values()))
        self.assertTrue(any(check.todo_blocks(SOURCE).values()))
        for template in (d / "todo.cu" for d in stages.stage_dirs()):
            self.assertFalse(any(check.todo_blocks(template.read_text()).values()), template)


if __name__ == "__main__":
    unittest.main()
