#!/usr/bin/env python3
"""Host tests of the student check's conclusions (scripts/course/rules.py and hints.py), fed
with the output the tools really print, so the keys and hints are right before any GPU runs."""
import pathlib
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))  # the package, also when run by hand
from course import build, check, hints, rules  # noqa: E402

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


def recorded(name, block=None, message=None, key="tests.wrong", gpu=None, cpu=None, **facts):
    """One test's object as a suite writes it into its JSON report: beside the name and the
    failures, the facts it recorded (tests/gpu/test_facts.h), all of them strings."""
    label = f"block{block}" if block is not None else "gpus1"
    test = {"name": f"{name}/{label}", "reduce_key": key}
    if block is not None:
        test["block"] = str(block)
    if gpu is not None:
        test["gpu_value"], test["cpu_value"] = gpu, cpu
    test.update({fact: str(value) for fact, value in facts.items()})
    test["failures"] = [{"failure": message}] if message is not None else []
    return test


def report(*tests):
    return {"tests": len(tests), "testsuites": [{"testsuite": list(tests)}]}


WRONG = {"message": "GPU 12.5, CPU 13", "gpu": "12.5", "cpu": "13"}


class SuiteVerdicts(unittest.TestCase):
    def key(self, *tests, text="", code=1):
        return rules.judge_suite(code, text, report(*tests), None).key

    def test_each_failure_pattern_has_its_key(self):
        self.assertIsNone(self.key(recorded("A", 32), code=0))
        self.assertEqual(self.key(recorded("A", 32, "GPU nan, CPU 1", gpu="nan", cpu="1")),
                         "tests.nan")
        self.assertEqual(self.key(recorded("A", 32, "GPU 1.2676506e+30, CPU 1",
                                           gpu="1.2676506002282294e+30", cpu="1")),
                         "tests.poison")
        self.assertEqual(self.key(recorded("A", 32, **WRONG), recorded("B", 32, **WRONG)),
                         "tests.block32")
        self.assertEqual(self.key(recorded("A", 32, **WRONG), recorded("A", 64, **WRONG)),
                         "tests.wrong")
        self.assertEqual(self.key(recorded("ExactIntegerInputGivesExactSum", 256, "GPU 3, exact 4",
                                           key="tests.exact", gpu="3", cpu="4")),
                         "tests.exact")
        self.assertEqual(self.key(recorded("SameInputGivesBitIdenticalSums", 256, "first run 1",
                                           key="tests.repeat")),
                         "tests.repeat")
        # The harness's own lines, on the suite's stderr (in the text the check reads).
        for line, key in (("reduce-failure: tests.ticket stage 14 left its ticket at 3", "tests.ticket"),
                          ("reduce-failure: tests.cuda_error x (cudaErrorIllegalAddress)", "tests.cuda_error"),
                          ("reduce-failure: tests.misaligned x (cudaErrorMisalignedAddress)",
                           "tests.misaligned")):
            self.assertEqual(self.key(recorded("A", 64, "C++ exception thrown"), text=line + "\n"), key)
        self.assertEqual(self.key(recorded("A", 64, **WRONG),
                                  text="reduce-check: __shfl_down_sync at /x/todo.cu:5 ran in lane 16"),
                         "tests.mask")

    def test_the_recorded_facts_alone_name_the_failure(self):
        # Names and messages that say nothing: the key, the block and the values are the
        # test's recorded facts.
        self.assertEqual(self.key(recorded("T1", 64, "no", key="tests.masked", gpu="nan", cpu="0")),
                         "tests.masked")
        self.assertEqual(self.key(recorded("T1", 64, "no", key="tests.leak")), "tests.leak")
        self.assertEqual(self.key(recorded("T1", 64, "no", gpu="-nan", cpu="1")), "tests.nan")
        self.assertEqual(self.key(recorded("T1", 64, "no", gpu="3 1e+30", cpu="3 2")), "tests.poison")
        self.assertEqual(self.key(recorded("T1", 32, "no"), recorded("T2", 32, "no")), "tests.block32")
        self.assertEqual(self.key(recorded("T1", 64, "no", key="tests.shards"),
                                  recorded("T2", 64, "no", gpu="nan", cpu="1")), "tests.shards")
        # ...and what a name or an English message says is not read any more.
        self.assertEqual(self.key(recorded("MaskedValuesComeOutZero", 64, "GPU nan, CPU 0")),
                         "tests.wrong")
        renamed = dict(recorded("Case", 32, "wrong"), name="Case/block64")
        self.assertEqual(self.key(renamed, recorded("Other", 32, "wrong")), "tests.block32")

    def test_arrival_order_drift_is_the_repeat_mistake(self):
        # stage 14's float_atomic_zeroed on the H100: bits differ at every block, and in some
        # runs the largest grid's sum drifts out of tolerance too.
        repeats = [recorded("SameInputGivesBitIdenticalSums", b, "first run 1", key="tests.repeat")
                   for b in (32, 64, 128, 256)]
        drifted = recorded("EveryValidSizeMatchesReference", 32, **WRONG)
        self.assertEqual(self.key(*repeats, drifted), "tests.repeat")
        # Wrong values at two sizes are a wrong sum, whatever else differs between runs.
        self.assertEqual(self.key(*repeats, drifted,
                                  recorded("DefaultInputMatchesReference", 64, **WRONG)),
                         "tests.wrong")
        # One size's differing bits beside a wrong value say nothing about the order.
        self.assertEqual(self.key(repeats[1], recorded("DefaultInputMatchesReference", 64, **WRONG)),
                         "tests.wrong")

    def test_a_test_without_facts_is_a_wrong_value(self):
        # A suite built before the tests recorded their facts.
        old = {"name": "ExactIntegerInputGivesExactSum/block32",
               "failures": [{"failure": "GPU nan, CPU 1"}]}
        verdict = rules.judge_suite(1, "", report(old), None)
        self.assertEqual((verdict.key, verdict.detail), ("tests.wrong", "1개 중 1개 실패"))

    def test_multi_gpu_failures_have_their_keys(self):
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
        for line, key in cases.items():
            verdict = rules.judge_suite(1, line + "\n", report(recorded("A", None, "x", gpus=1)), None)
            self.assertEqual(verdict.key, key, line)
            self.assertIn("GPU 1개로 돌린 경우", verdict.detail)
        # The shard test's own failure: its recorded key, with the harness's priority.
        shards = recorded("ShardsFollowEachOtherAndCoverN", None, "2 GPUs, n = 7", key="tests.shards",
                          gpus=2)
        verdict = rules.judge_suite(1, "", report(shards, recorded("B", None, "x", gpus=2, gpu="nan",
                                                                   cpu="1")), None)
        self.assertEqual(verdict.key, "tests.shards")
        self.assertIn("GPU 2개로 돌린 경우", verdict.detail)

    def test_versioned_suites_read_the_block_from_their_facts(self):
        versioned = report(recorded("A", 32, version=1, **WRONG), recorded("B", 32, version=4, **WRONG))
        self.assertEqual(rules.judge_suite(1, "", versioned, None).key, "tests.block32")
        self.assertIn("(block 32)", rules.judge_suite(1, "", versioned, None).detail)
        self.assertEqual(self.key(recorded("NanAnywhereGivesNan", 64, "GPU 0.9, CPU nan",
                                           key="tests.nan_rule", gpu="0.90000000000000002", cpu="nan")),
                         "tests.nan_rule")
        argmax = {"key": "tests.argmax", "message": "GPU index 9 (value 3), CPU index 0"}
        self.assertEqual(self.key(recorded("ArgmaxOfTiesIsTheFirst", 64, gpu="9", cpu="0", **argmax),
                                  recorded("ArgmaxAtEveryPlace", 32, gpu="none", cpu="1", **argmax)),
                         "tests.argmax")
        # A wrong argmax fails the hidden-seed argmax test too: still the argmax's key.
        self.assertEqual(self.key(recorded("ArgmaxOfDefaultInput", 64, gpu="9", cpu="0", **argmax),
                                  recorded("HiddenSeedArgmax", 64, gpu="9", cpu="0", hidden=1, **argmax)),
                         "tests.argmax")

    def test_the_row_stages_keys_outrank_their_nan_values(self):
        # A test of the row stages whose failure names the mistake, NaN outputs or not...
        overflow = recorded("LogitsOfPlusMinusAThousandMatch", 32, "x", key="tests.overflow",
                            gpu="nan", cpu="0.5")
        self.assertEqual(self.key(overflow), "tests.overflow")
        # ...while a NaN rule broken with NaN values elsewhere is a NaN.
        self.assertEqual(self.key(recorded("NanSpoilsOnlyItsRow", 64, "x", key="tests.nan_rule",
                                           gpu="nan", cpu="0.25")), "tests.nan")

    def test_misused_barrier_fails_even_when_every_test_passes(self):
        with tempfile.TemporaryDirectory() as folder:
            source = pathlib.Path(folder) / "todo.cu"
            source.write_text(SOURCE)
            text = ("reduce-check: __syncthreads at /x/todo.cu:9 reached by 128 of the block's "
                    "256 threads (this warp: lanes 0xffffffff)\n")
            verdict = rules.judge_suite(0, text, report(recorded("A", 32)), None, source)
            self.assertFalse(verdict.ok)
            self.assertEqual(verdict.key, "tests.barrier.todo2")
            self.assertIn("todo.cu:9", verdict.detail)

    def test_keys_take_the_old_priority_and_sentences_alone_name_nothing(self):
        # A lost ticket explains the CUDA error after it; a CUDA error outranks wrong sums.
        both = ("reduce-failure: tests.cuda_error launch failed (cudaErrorLaunchFailure)\n"
                "reduce-failure: tests.ticket stage 14 left its ticket at 3")
        self.assertEqual(self.key(recorded("A", 64, "x"), text=both), "tests.ticket")
        self.assertEqual(self.key(recorded("A", 64, **WRONG), text="reduce-failure: tests.cuda_error x"),
                         "tests.cuda_error")
        shards = "reduce-failure: tests.shards x\nreduce-failure: tests.nccl_error y"
        self.assertEqual(self.key(recorded("A", 64, "x"), text=shards), "tests.shards")
        # The English sentences are details for people now, not what the rules read, and so
        # are the failures' messages: the harness prints its lines on the output.
        self.assertEqual(self.key(recorded("A", 64, "left its ticket (cudaErrorIllegalAddress)"),
                                  recorded("A", 32, **WRONG)), "tests.wrong")
        self.assertEqual(self.key(recorded("A", 64, "reduce-failure: tests.ticket y"),
                                  recorded("A", 32, **WRONG)), "tests.wrong")
        # A crash's stderr (the executable's own reduce-failure line) still names the key.
        crash = rules.judge_suite(134, "reduce-failure: tests.misaligned x\nAborted", None, None)
        self.assertEqual(crash.key, "tests.misaligned")

    def test_skipped_tests_are_not_passes(self):
        skipped = dict(recorded("A", 32), result="SKIPPED")
        ran = dict(recorded("A", 64), result="COMPLETED")
        every = rules.judge_suite(0, "", report(skipped, dict(skipped, name="A/block64")), None)
        self.assertFalse(every.ok)
        self.assertEqual(every.key, "tests.skipped")
        some = rules.judge_suite(0, "", report(skipped, ran), None)
        self.assertTrue(some.ok)
        self.assertIn("1개 통과", some.detail)
        self.assertIn("1개는", some.detail)
        self.assertEqual(rules.judge_suite(0, "", report(ran), None).detail, "1개 모두 통과")

    def test_crash_and_timeout(self):
        self.assertEqual(rules.judge_suite(134, "Aborted", None, None).key, "tests.crash")
        self.assertEqual(rules.judge_suite(None, "", None, None).key, "tests.timeout")


class OutsideTheBlocks(unittest.TestCase):
    """The check fails a file changed outside its TODO blocks, as the grader does."""

    def verdict(self, text):
        with tempfile.TemporaryDirectory() as folder:
            shipped = pathlib.Path(folder) / "todo.cu"
            shipped.write_text(SOURCE)
            stage = type("Stage", (), {"shipped_template": shipped})()
            return check.outside_verdict(stage, text)

    def test_edits_inside_the_blocks_and_trailing_spaces_pass(self):
        inside = SOURCE.replace("sdata[tid] = in[i];", "sdata[tid] = in[i] + 0.0f;")
        self.assertIsNone(self.verdict(inside))
        self.assertIsNone(self.verdict(SOURCE.replace("// header", "// header   ")))

    def test_a_helper_above_the_kernel_fails_with_its_line(self):
        helper = SOURCE.replace("// header", "// header\n__device__ float twice(float x) { return 2 * x; }")
        verdict = self.verdict(helper)
        self.assertFalse(verdict.ok)
        self.assertEqual(verdict.key, "outside")
        self.assertIn("2번째 줄", verdict.detail)
        self.assertIn("TODO 블록 밖", check.verdict_line(verdict, {}))

    def test_a_removed_line_fails(self):
        self.assertEqual(self.verdict(SOURCE.replace("  }\n", "", 1)).key, "outside")

    def test_no_shipped_copy_no_verdict(self):
        stage = type("Stage", (), {"shipped_template": None})()
        self.assertIsNone(check.outside_verdict(stage, "anything"))


class ProgressLine(unittest.TestCase):
    def test_the_folder_name_is_printed_whole(self):
        line = rules.progress_line(7, "stage07_interleaved", "not_started", [])
        self.assertIn("stage07_interleaved", line)
        failed = rules.Verdict("tests", False, "3개 중 1개 실패", "tests.wrong")
        line = rules.progress_line(7, "stage07_interleaved", "fail", [failed])
        self.assertIn("stage07_interleaved:", line)
        self.assertIn("scripts/check.sh 7", line)


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
        for hints_file in (d / "hints.txt" for d in (s.directory for s in build.registry().stages)):
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
        for template in (d / "todo.cu" for d in (s.directory for s in build.registry().stages)):
            self.assertFalse(any(check.todo_blocks(template.read_text()).values()), template)


if __name__ == "__main__":
    unittest.main()
